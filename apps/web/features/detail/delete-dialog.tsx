'use client';

import { useEffect, useId, useState } from 'react';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { ApiClient } from '@/lib/api/api-client';
import { errorText } from '@/lib/query/query-state';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';

/**
 * Confirms a deletion in a modal <dialog> (focus stays inside, Escape closes); the Delete button is enabled only
 * once the object's name is typed. Delete sends it; `onDeleted` runs once the server accepted it (still busy), a
 * failure stays in the dialog.
 */
export function DeleteDialog({
  open,
  api,
  name,
  namespace,
  podCount,
  onCancel,
  onDeleted,
}: {
  open: boolean;
  api: ApiClient;
  name: string;
  namespace: string;
  podCount: number;
  onCancel: () => void;
  onDeleted: () => void;
}) {
  const id = useId();
  const [typed, setTyped] = useState('');
  const remove = useNginxMutation(
    { namespace, name },
    { mutationFn: () => api.deleteNginx(namespace, name), onSuccess: onDeleted },
  );
  const { reset } = remove;

  useEffect(() => {
    if (!open) return;
    setTyped('');
    reset();
  }, [open, reset]);

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
      error={errorText(remove.error)}
      busy={remove.isPending}
      canConfirm={typed === name}
      confirmLabel="Delete"
      busyLabel="Deleting…"
      tone="danger"
      testId="delete-dialog"
      onCancel={onCancel}
      onConfirm={() => remove.mutate()}
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
