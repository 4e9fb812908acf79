import type { RevisionItem } from '@ngx/nginx-api';
import { Age } from '@/components/ui/age';
import { Badge } from '@/components/ui/badge';
import { TableWrap } from '@/components/ui/table-wrap';
import { verbText } from '@/features/revisions/revision-diff';

/** Characters of the template hash shown (the whole hash is in the title). */
const SHORT_HASH = 7;

/** Who introduced a revision (the audited write), or a muted note when the change audit has no record of it. */
function Introduced({ change }: { change: RevisionItem['change'] }) {
  if (!change) return <span className="muted">not in the change audit</span>;
  return (
    <>
      <span data-testid="revision-actor">{change.actor}</span>{' '}
      <span className="muted">({change.role ?? `via ${change.door}`})</span> {verbText(change.verb)}{' '}
      <Age since={change.at} /> ago
    </>
  );
}

/**
 * The revisions, newest number first: number, short hash, image, who introduced it and when, a "current" badge on
 * the spec's revision, and "Roll back to this" on every other row when `onRollBack` is given (writers only).
 */
export function RevisionTable({
  items,
  onRollBack,
}: {
  items: readonly RevisionItem[];
  onRollBack?: (item: RevisionItem) => void;
}) {
  return (
    <TableWrap label="Revisions">
      <table data-testid="revision-table">
        <thead>
          <tr>
            <th scope="col" className="num">
              Revision
            </th>
            <th scope="col">Hash</th>
            <th scope="col">Image</th>
            <th scope="col">Introduced by</th>
            <th scope="col">Created</th>
            {onRollBack && (
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr
              key={item.revision}
              data-testid="revision-row"
              data-revision={item.revision}
              data-hash={item.hash}
              data-current={item.current}
            >
              <td className="num">
                {item.revision}{' '}
                {item.current && (
                  <Badge tone="success" title="The spec's pod template is this revision">
                    current
                  </Badge>
                )}
              </td>
              <td className="mono" title={item.hash}>
                {item.hash.slice(0, SHORT_HASH)}
              </td>
              <td className="mono">{item.template.image}</td>
              <td>
                <Introduced change={item.change} />
              </td>
              <td>
                {item.created ? (
                  <>
                    <Age since={item.created} /> ago
                  </>
                ) : (
                  '—'
                )}
              </td>
              {onRollBack && (
                <td>
                  {!item.current && (
                    <button
                      type="button"
                      onClick={() => onRollBack(item)}
                      title={`Roll back to revision ${item.revision}`}
                    >
                      Roll back to this
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}
