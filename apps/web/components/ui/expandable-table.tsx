'use client';

import { Fragment, type ReactNode } from 'react';
import { TableWrap } from '@/components/ui/table-wrap';
import { useExpandedRows } from '@/lib/ui/use-expanded-rows';

/** A column after the expander's: its header and the class of its header cell. */
export interface ExpandableColumn {
  header: string;
  className?: string;
}

/**
 * A table whose rows expand to a detail row below them: the first column is a ▸ button (aria-expanded,
 * aria-controls the detail row); a click anywhere on the row but a link or a button toggles it too.
 */
export function ExpandableTable<T extends { id: number }>({
  label,
  testId,
  idPrefix,
  columns,
  items,
  rowData,
  expanderLabel,
  cells,
  detail,
}: {
  /** The table's name (its scroll region's label). */
  label: string;
  testId: string;
  /** The detail row of item `id` gets the element id `${idPrefix}-${id}`. */
  idPrefix: string;
  columns: ExpandableColumn[];
  items: T[];
  /** The row's data-testid and data-* attributes. */
  rowData: (item: T) => Record<`data-${string}`, string | number | undefined>;
  /** The expander's accessible name. */
  expanderLabel: (item: T) => string;
  /** The row's cells after the expander's, as <td>s. */
  cells: (item: T) => ReactNode;
  detail: (item: T) => ReactNode;
}) {
  const { isOpen, toggle } = useExpandedRows();

  return (
    <TableWrap label={label}>
      <table data-testid={testId}>
        <thead>
          <tr>
            <th scope="col" style={{ width: '2.5rem' }}>
              <span className="visually-hidden">Details</span>
            </th>
            {columns.map((column) => (
              <th key={column.header} scope="col" className={column.className}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => {
            const expanded = isOpen(item.id);
            return (
              <Fragment key={item.id}>
                <tr
                  className={expanded ? 'expanded' : undefined}
                  {...rowData(item)}
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
                      aria-controls={`${idPrefix}-${item.id}`}
                      aria-label={expanderLabel(item)}
                      onClick={() => toggle(item.id)}
                    >
                      <span className="chevron" aria-hidden="true">
                        ▸
                      </span>
                    </button>
                  </td>
                  {cells(item)}
                </tr>
                {expanded && (
                  <tr className="detail-row" id={`${idPrefix}-${item.id}`}>
                    <td colSpan={columns.length + 1}>{detail(item)}</td>
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
