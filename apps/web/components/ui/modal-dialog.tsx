'use client';

import { useEffect, useRef, type ComponentPropsWithoutRef, type ReactNode } from 'react';

export type ModalDialogProps = Omit<ComponentPropsWithoutRef<'dialog'>, 'open' | 'onClose'> & {
  /** Shown as a modal while true (focus stays inside, the page behind is inert); closed when it turns false. */
  open: boolean;
  /** The dialog closed: Escape, or `open` turned false. */
  onClose: () => void;
  children?: ReactNode;
};

/** A modal `<dialog>` that follows `open`; every other prop goes to the element. */
export function ModalDialog({ open, onClose, children, ...props }: ModalDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);

  return (
    <dialog ref={ref} onClose={onClose} {...props}>
      {children}
    </dialog>
  );
}
