'use client';

import { useEffect, useId, useRef, type FormEvent } from 'react';
import type { RollbackTarget } from '@/lib/revisions/use-revisions';

/**
 * Confirms a rollback in a modal <dialog> (open while `target` is set; Escape or Cancel calls `onCancel`): names
 * the revision and lists what will change, then "Roll back" calls `onConfirm`. `error` (a refusal, a failure) is
 * shown inside; `paused` adds that pods move only once the rollout resumes.
 */
export function RollbackDialog({
  target,
  busy,
  error,
  paused,
  onCancel,
  onConfirm,
}: {
  target: RollbackTarget | undefined;
  busy: boolean;
  error: string | undefined;
  paused: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId();
  const open = target !== undefined;

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    else if (!open && dialog.open) dialog.close();
  }, [open]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!busy) onConfirm();
  }

  return (
    <dialog
      ref={ref}
      aria-labelledby={`${id}-title`}
      aria-describedby={`${id}-description`}
      onClose={() => {
        if (open) onCancel();
      }}
      data-testid="rollback-dialog"
    >
      {target && (
        <form onSubmit={submit} noValidate>
          <div className="dialog-body">
            <h2 id={`${id}-title`}>Roll back to revision {target.revision.revision}?</h2>
            <div id={`${id}-description`}>
              {target.summary.length > 0 ? (
                <>
                  <p>This writes revision {target.revision.revision}&apos;s pod template into the spec:</p>
                  <ul className="rev-summary" data-testid="rollback-summary">
                    {target.summary.map((sentence) => (
                      <li key={sentence}>{sentence}</li>
                    ))}
                  </ul>
                </>
              ) : (
                <p>The pod template would not change.</p>
              )}
              <p className="small muted">
                Replicas, strategy and the other fields stay as they are; the revision becomes the newest.
                {paused && ' The rollout is paused: pods move to it once it is resumed.'}
              </p>
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
            <button type="submit" className="primary" disabled={busy}>
              {busy ? 'Rolling back…' : 'Roll back'}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
