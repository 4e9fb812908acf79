'use client';

import { ReconcileDetail } from '@/features/audit/reconcile-detail';
import { Badge, type Tone } from '@/components/ui/badge';
import { ExpandableTable } from '@/components/ui/expandable-table';
import { NginxLink } from '@/features/audit/nginx-link';
import type { ReconcileItem } from '@/lib/api/api-client';
import { summariseActions } from '@/features/audit/audit-actions';
import { formatDateTime, formatDuration } from '@/lib/ui/format';

const RESULT_TONES: Record<string, Tone> = { success: 'success', error: 'danger', requeued: 'warning' };

const COLUMNS = [
  { header: 'Started' },
  { header: 'Nginx' },
  { header: 'Trigger' },
  { header: 'Actions' },
  { header: 'Result' },
  { header: 'Duration', className: 'num' },
];

/** The reconcile timeline; a row expands to its error and the full action list. */
export function ReconcileTable({ items }: { items: ReconcileItem[] }) {
  return (
    <ExpandableTable
      label="Reconciles"
      testId="reconcile-table"
      idPrefix="reconcile"
      columns={COLUMNS}
      items={items}
      rowData={(item) => ({
        'data-testid': 'reconcile-row',
        'data-key': `${item.namespace}/${item.name}`,
        'data-result': item.result,
      })}
      expanderLabel={(item) =>
        `Details of the reconcile of ${item.namespace}/${item.name} at ${formatDateTime(item.startedAt)}`
      }
      cells={(item) => (
        <>
          <td className="mono small">
            <time dateTime={item.startedAt}>{formatDateTime(item.startedAt)}</time>
          </td>
          <td>
            <NginxLink namespace={item.namespace} name={item.name} />
          </td>
          <td>
            <code>{item.trigger}</code>
          </td>
          <td data-testid="reconcile-actions">{summariseActions(item.actions)}</td>
          <td>
            <Badge tone={RESULT_TONES[item.result] ?? 'neutral'}>{item.result}</Badge>
          </td>
          <td className="num">{formatDuration(item.durationMs)}</td>
        </>
      )}
      detail={(item) => <ReconcileDetail item={item} />}
    />
  );
}
