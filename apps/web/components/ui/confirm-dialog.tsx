'use client';

import { useId, type FormEvent, type ReactNode } from 'react';
import { ModalDialog } from './modal-dialog';

/**
 * Asks before an action, in a modal <dialog> (open while `open`; Escape or Cancel calls `onCancel`): the title,
 * what the action does (the dialog's description), any fields (`children`), and why the last attempt failed;
 * the confirm button calls `onConfirm` while `canConfirm` and not `busy`.
 */
export function ConfirmDialog({
  open,
  title,
  description,
  children,
  error,
  busy,
  canConfirm = true,
  confirmLabel,
  busyLabel,
  tone,
  testId,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  title: ReactNode;
  description: ReactNode;
  children?: ReactNode;
  error: string | undefined;
  busy: boolean;
  canConfirm?: boolean;
  confirmLabel: string;
  busyLabel: string;
  /** The confirm button's look: `danger` for what cannot be undone. */
  tone: 'primary' | 'danger';
  testId: string;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const id = useId();

  function submit(event: FormEvent) {
    event.preventDefault();
    if (canConfirm && !busy) onConfirm();
  }

  return (
    <ModalDialog
      open={open}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-description`}
      onClose={() => {
        if (open) onCancel();
      }}
      data-testid={testId}
    >
      {open && (
        <form onSubmit={submit} noValidate>
          <div className="dialog-body">
            <h2 id={`${id}-title`}>{title}</h2>
            <div id={`${id}-description`}>{description}</div>
            {children}
            {error && (
              <p className="alert" role="alert">
                {error}
              </p>
            )}
          </div>
          <div className="dialog-actions">
            <button type="button" onClick={onCancel}>
              Cancel
            </button>
            <button type="submit" className={tone} disabled={!canConfirm || busy}>
              {busy ? busyLabel : confirmLabel}
            </button>
          </div>
        </form>
      )}
    </ModalDialog>
  );
}
