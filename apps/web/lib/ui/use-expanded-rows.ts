import { useState } from 'react';

/** `open` with `id` added, or removed when it was there. */
export function toggled(open: ReadonlySet<number>, id: number): ReadonlySet<number> {
  const next = new Set(open);
  if (!next.delete(id)) next.add(id);
  return next;
}

/** Which rows of a table are expanded, by id, and a toggle for one. */
export function useExpandedRows(): { isOpen: (id: number) => boolean; toggle: (id: number) => void } {
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const toggle = (id: number) => setOpen((current) => toggled(current, id));
  return { isOpen: (id) => open.has(id), toggle };
}
