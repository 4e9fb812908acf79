import { useState } from 'react';

/** Which rows of a table are expanded, by id, and a toggle for one. */
export function useExpandedRows(): { isOpen: (id: number) => boolean; toggle: (id: number) => void } {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(id)) next.add(id);
      return next;
    });
  return { isOpen: (id) => open.has(id), toggle };
}
