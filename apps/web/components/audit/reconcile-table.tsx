'use client';

import Link from 'next/link';
import { Fragment } from 'react';
import { ReconcileDetail } from '@/components/audit/reconcile-detail';
import { Badge, type Tone } from '@/components/badge';
import { TableWrap } from '@/components/table-wrap';
import type { ReconcileItem } from '@/lib/api/api-client';
import { summariseActions } from '@/lib/audit/audit-actions';
import { formatDateTime, formatDuration } from '@/lib/ui/format';
import { detailHref } from '@/lib/nginx/nginx-view';
import { useExpandedRows } from '@/lib/ui/use-expanded-rows';

const RESULT_TONES: Record<string, Tone> = { success: 'success', error: 'danger', requeued: 'warning' };

/** The reconcile timeline; a row expands to its error and the full action list. */
export function ReconcileTable({ items }: { items: ReconcileItem[] }) {
  const { isOpen, toggle } = useExpandedRows();

  return (
    <TableWrap label="Reconciles">
      <table data-testid="reconcile-table">
        <thead>
          <tr>
            <th scope="col" style={{ width: '2.5rem' }}>
              <span className="visually-hidden">Details</span>
            </th>
            <th scope="col">Started</th>
            <th scope="col">Nginx</th>
            <th scope="col">Trigger</th>
            <th scope="col">Actions</th>
            <th scope="col">Result</th>
            <th scope="col" className="num">
              Duration
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const expanded = isOpen(item.id);
            return (
              <Fragment key={item.id}>
                <tr
                  className={expanded ? 'expanded' : undefined}
                  data-testid="reconcile-row"
                  data-key={`${item.namespace}/${item.name}`}
                  data-result={item.result}
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
                      aria-controls={`reconcile-${item.id}`}
                      aria-label={`Details of the reconcile of ${item.namespace}/${item.name} at ${formatDateTime(item.startedAt)}`}
                      onClick={() => toggle(item.id)}
                    >
                      <span className="chevron" aria-hidden="true">
                        ▸
                      </span>
                    </button>
                  </td>
                  <td className="mono small">
                    <time dateTime={item.startedAt}>{formatDateTime(item.startedAt)}</time>
                  </td>
                  <td>
                    <Link href={detailHref(item.namespace, item.name)} prefetch={false}>
                      {item.namespace}/{item.name}
                    </Link>
                  </td>
                  <td>
                    <code>{item.trigger}</code>
                  </td>
                  <td data-testid="reconcile-actions">{summariseActions(item.actions)}</td>
                  <td>
                    <Badge tone={RESULT_TONES[item.result] ?? 'neutral'}>{item.result}</Badge>
                  </td>
                  <td className="num">{formatDuration(item.durationMs)}</td>
                </tr>
                {expanded && (
                  <tr className="detail-row" id={`reconcile-${item.id}`}>
                    <td colSpan={7}>
                      <ReconcileDetail item={item} />
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
