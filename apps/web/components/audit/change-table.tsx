'use client';

import Link from 'next/link';
import { Fragment } from 'react';
import { ChangeDetail } from '@/components/audit/change-detail';
import { Badge } from '@/components/badge';
import { TableWrap } from '@/components/table-wrap';
import type { ChangeItem } from '@/lib/api/api-client';
import { changePersonTitle } from '@/lib/audit/change-person';
import { formatDateTime } from '@/lib/ui/format';
import { detailHref } from '@/lib/nginx/nginx-view';
import { useExpandedRows } from '@/lib/ui/use-expanded-rows';

/**
 * The change log: who did what to which Nginx, and the answer; a row expands to the diff of the spec. Every verb
 * (create, update, patch, apply, delete, rollback) is shown as recorded, with its subresource.
 */
export function ChangeTable({ items }: { items: ChangeItem[] }) {
  const { isOpen, toggle } = useExpandedRows();

  return (
    <TableWrap label="Changes">
      <table data-testid="change-table">
        <thead>
          <tr>
            <th scope="col" style={{ width: '2.5rem' }}>
              <span className="visually-hidden">Details</span>
            </th>
            <th scope="col">At</th>
            <th scope="col">Who</th>
            <th scope="col">Verb</th>
            <th scope="col">Nginx</th>
            <th scope="col">Code</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const expanded = isOpen(item.id);
            const ok = item.code >= 200 && item.code < 300;
            return (
              <Fragment key={item.id}>
                <tr
                  className={expanded ? 'expanded' : undefined}
                  data-testid="change-row"
                  data-verb={item.verb}
                  data-code={item.code}
                  onClick={(e) => {
                    if ((e.target as HTMLElement).closest('a, button')) return;
                    toggle(item.id);
                  }}
                  style={{ cursor: 'pointer' }}
                >
                  <td>
                    <button
                      type="button"
                      className="expander"
                      aria-expanded={expanded}
                      aria-controls={`change-${item.id}`}
                      aria-label={`Details of ${item.actor}'s ${item.verb} of ${item.namespace}/${item.name} at ${formatDateTime(item.at)}`}
                      onClick={() => toggle(item.id)}
                    >
                      <span className="chevron" aria-hidden="true">
                        ▸
                      </span>
                    </button>
                  </td>
                  <td className="mono small">
                    <time dateTime={item.at}>{formatDateTime(item.at)}</time>
                  </td>
                  <td>
                    {item.actor ? (
                      <span title={changePersonTitle(item)}>{item.actor}</span>
                    ) : (
                      <span className="muted">unknown</span>
                    )}{' '}
                    <Badge tone="neutral">{item.role ?? `via ${item.door}`}</Badge>
                  </td>
                  <td>
                    <code>
                      {item.verb}
                      {item.subresource ? `/${item.subresource}` : ''}
                    </code>
                  </td>
                  <td>
                    <Link href={detailHref(item.namespace, item.name)} prefetch={false}>
                      {item.namespace}/{item.name}
                    </Link>
                  </td>
                  <td>
                    <Badge tone={ok ? 'success' : 'danger'}>
                      {item.code}
                      {item.reason ? ` ${item.reason}` : ''}
                    </Badge>
                  </td>
                </tr>
                {expanded && (
                  <tr className="detail-row" id={`change-${item.id}`}>
                    <td colSpan={6}>
                      <ChangeDetail item={item} ok={ok} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </TableWrap>
  );
}
