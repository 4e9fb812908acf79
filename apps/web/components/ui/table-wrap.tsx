import type { ReactNode } from 'react';

/**
 * A table that may scroll sideways on narrow screens: a labelled, focusable region, so keyboard users can scroll it
 * too (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={`${label} table`} tabIndex={0}>
      {children}
    </div>
  );
}
