import type { NginxPodTemplate } from '@ngx/nginx-api';
import { useMemo } from 'react';
import { TableWrap } from '@/components/ui/table-wrap';
import { configDiff, templateFieldRows } from '@/features/revisions/revision-diff';
import { ConfigSideBySide } from './config-side-by-side';

/**
 * Two revisions' templates side by side: a row per field (image, port, health check path, probe, resources,
 * config), the changed ones marked in words as well as in weight, then the config texts line by line.
 */
export function RevisionDiff({
  before,
  after,
  fromLabel,
  toLabel,
}: {
  before: NginxPodTemplate;
  after: NginxPodTemplate;
  fromLabel: string;
  toLabel: string;
}) {
  const rows = useMemo(() => templateFieldRows(before, after), [before, after]);
  const config = useMemo(() => configDiff(before, after), [before, after]);
  const changes = rows.filter((row) => row.changed).length;

  return (
    <div data-testid="revision-diff" data-changes={changes}>
      <p className="small muted" role="status">
        {changes === 0
          ? 'The two revisions run the same pod template.'
          : `${changes} field${changes === 1 ? '' : 's'} differ${changes === 1 ? 's' : ''}.`}
      </p>
      <TableWrap label="Revision fields">
        <table className="rev-fields">
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">{fromLabel}</th>
              <th scope="col">{toLabel}</th>
              <th scope="col">
                <span className="visually-hidden">Changed</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.field}
                className={row.changed ? 'changed' : undefined}
                data-testid="revision-diff-field"
                data-field={row.field}
                data-changed={row.changed}
              >
                <th scope="row">{row.field}</th>
                <td className="before">{row.before}</td>
                <td className="after">{row.after}</td>
                <td className="changed-mark">{row.changed ? 'changed' : ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      <h4 className="rev-config-title">Config</h4>
      <ConfigSideBySide diff={config} fromLabel={fromLabel} toLabel={toLabel} />
    </div>
  );
}
