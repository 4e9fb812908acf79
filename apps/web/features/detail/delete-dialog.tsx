'use client';

import { useEffect, useId, useState } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { errorMessage } from '@/lib/api/api-client';

/**
 * Confirms a deletion in a modal <dialog> (focus stays inside, Escape closes); the Delete button is enabled only
 * once the object's name is typed.
 */
export function DeleteDialog({
  open,
  name,
  namespace,
  podCount,
  onCancel,
  onConfirm,
}: {
  open: boolean;
  name: string;
  namespace: string;
  podCount: number;
  onCancel: () => void;
  onConfirm: () => Promise<void>;
}) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    if (!open) return;
    setTyped('');
    setError(undefined);
  }, [open]);

  async function confirm() {
    setBusy(true);
    setError(undefined);
    try {
      await onConfirm();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <ConfirmDialog
      open={open}
      title={`Delete Nginx ${name}?`}
      description={
        <p>
          This deletes <strong>{name}</strong> in <strong>{namespace}</strong>
          {podCount > 0 ? ` and its ${podCount} pod${podCount === 1 ? '' : 's'}` : ''}. It cannot be undone.
        </p>
      }
      error={error}
      busy={busy}
      canConfirm={typed === name}
      confirmLabel="Delete"
      busyLabel="Deleting…"
      tone="danger"
      testId="delete-dialog"
      onCancel={onCancel}
      onConfirm={() => void confirm()}
    >
      <div className="field">
        <label htmlFor={`${id}-confirm`}>
          Type <code>{name}</code> to confirm
        </label>
        <input
          id={`${id}-confirm`}
          value={typed}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setTyped(e.target.value)}
          data-testid="delete-confirm-input"
        />
      </div>
    </ConfirmDialog>
  );
}
