'use client';

import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
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
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const [typed, setTyped] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      setTyped('');
      setError(undefined);
      dialog.showModal();
    } else if (!open && dialog.open) dialog.close();
  }, [open]);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (typed !== name) return;
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
    <dialog
      ref={ref}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-description`}
      onClose={onCancel}
      data-testid="delete-dialog"
    >
      <form onSubmit={submit} noValidate>
        <div className="dialog-body">
          <h2 id={`${id}-title`}>Delete Nginx {name}?</h2>
          <p id={`${id}-description`}>
            This deletes <strong>{name}</strong> in <strong>{namespace}</strong>
            {podCount > 0 ? ` and its ${podCount} pod${podCount === 1 ? '' : 's'}` : ''}. It cannot be undone.
          </p>
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
          <button type="submit" className="danger" disabled={typed !== name || busy}>
            {busy ? 'Deleting…' : 'Delete'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
