'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { NginxRow, ROW_HEIGHT } from '@/features/list/nginx-row';
import type { Sort, SortKey } from '@/features/list/nginx-list-rows';
import { nginxKey } from '@/lib/nginx/nginx-view';
import './list.css';

const COLUMNS: { key: SortKey; label: string; width: string }[] = [
  { key: 'name', label: 'Name', width: '19%' },
  { key: 'namespace', label: 'Namespace', width: '12%' },
  { key: 'ready', label: 'Ready / desired', width: '13%' },
  { key: 'updated', label: 'Up-to-date', width: '17%' },
  { key: 'conditions', label: 'Conditions', width: '17%' },
  { key: 'image', label: 'Image', width: '14%' },
  { key: 'age', label: 'Age', width: '8%' },
];

/**
 * The Nginx table, virtualised: only the rows in view (and a few around them) are in the DOM, between two spacer
 * rows, so thousands of live rows scroll and update smoothly. It stays a real <table> for assistive technology,
 * with aria-rowcount/aria-rowindex telling the full size.
 */
export function NginxTable({
  nginxes,
  sort,
  onSort,
  view,
}: {
  nginxes: Nginx[];
  sort: Sort;
  onSort: (key: SortKey) => void;
  /** Changes when the user changes what is shown (namespace, filter): the table scrolls back to the top. */
  view: string;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [sort.key, sort.dir, view]);
  const virtualizer = useVirtualizer({
    count: nginxes.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (index) => nginxKey(nginxes[index]!),
  });
  const items = virtualizer.getVirtualItems();
  const top = items[0]?.start ?? 0;
  const bottom = items.length ? virtualizer.getTotalSize() - items[items.length - 1]!.end : 0;

  return (
    <div className="virtual-scroll" ref={scroller} data-testid="nginx-table-scroll">
      <table aria-rowcount={nginxes.length + 1} data-testid="nginx-table">
        <caption className="visually-hidden">Nginxes, sorted by {sort.key}</caption>
        <colgroup>
          {COLUMNS.map((c) => (
            <col key={c.key} style={{ width: c.width }} />
          ))}
        </colgroup>
        <thead>
          <tr aria-rowindex={1}>
            {COLUMNS.map((column) => {
              const active = sort.key === column.key;
              return (
                <th
                  key={column.key}
                  scope="col"
                  aria-sort={active ? (sort.dir === 'asc' ? 'ascending' : 'descending') : undefined}
                >
                  <button type="button" className="sort" onClick={() => onSort(column.key)}>
                    {column.label}
                    <span className="sort-icon" aria-hidden="true">
                      {active ? (sort.dir === 'asc' ? '▲' : '▼') : '↕'}
                    </span>
                  </button>
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {top > 0 && (
            <tr aria-hidden="true" className="spacer">
              <td colSpan={COLUMNS.length} style={{ height: top, padding: 0, border: 0 }} />
            </tr>
          )}
          {items.map((item) => (
            <NginxRow key={item.key} nginx={nginxes[item.index]!} index={item.index} />
          ))}
          {bottom > 0 && (
            <tr aria-hidden="true" className="spacer">
              <td colSpan={COLUMNS.length} style={{ height: bottom, padding: 0, border: 0 }} />
            </tr>
          )}
        </tbody>
      </table>
    </div>
  );
}
