'use client';

import { ChangeDetail } from '@/features/audit/change-detail';
import { Badge } from '@/components/ui/badge';
import { ExpandableTable } from '@/components/ui/expandable-table';
import { NginxLink } from '@/features/audit/nginx-link';
import type { ChangeItem } from '@/lib/api/api-client';
import { changePersonTitle } from '@/features/audit/change-person-view';
import { formatDateTime } from '@/lib/ui/format';

const COLUMNS = [
  { header: 'At' },
  { header: 'Who' },
  { header: 'Verb' },
  { header: 'Nginx' },
  { header: 'Code' },
];

const succeeded = (item: ChangeItem) => item.code >= 200 && item.code < 300;

/**
 * The change log: who did what to which Nginx, and the answer; a row expands to the diff of the spec. Every verb
 * (create, update, patch, apply, delete, rollback) is shown as recorded, with its subresource.
 */
export function ChangeTable({ items }: { items: ChangeItem[] }) {
  return (
    <ExpandableTable
      label="Changes"
      testId="change-table"
      idPrefix="change"
      columns={COLUMNS}
      items={items}
      rowData={(item) => ({ 'data-testid': 'change-row', 'data-verb': item.verb, 'data-code': item.code })}
      expanderLabel={(item) =>
        `Details of ${item.actor}'s ${item.verb} of ${item.namespace}/${item.name} at ${formatDateTime(item.at)}`
      }
      cells={(item) => (
        <>
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
            <NginxLink namespace={item.namespace} name={item.name} />
          </td>
          <td>
            <Badge tone={succeeded(item) ? 'success' : 'danger'}>
              {item.code}
              {item.reason ? ` ${item.reason}` : ''}
            </Badge>
          </td>
        </>
      )}
      detail={(item) => <ChangeDetail item={item} ok={succeeded(item)} />}
    />
  );
}
