'use client';

import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { RollbackTarget } from '@/features/revisions/use-revisions';

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
  return (
    <ConfirmDialog
      open={target !== undefined}
      title={`Roll back to revision ${target?.revision.revision}?`}
      description={target && <RollbackSummary target={target} paused={paused} />}
      error={error}
      busy={busy}
      confirmLabel="Roll back"
      busyLabel="Rolling back…"
      tone="primary"
      testId="rollback-dialog"
      onCancel={onCancel}
      onConfirm={onConfirm}
    />
  );
}

/** What the rollback writes: the changes to the pod template, and what stays. */
function RollbackSummary({ target, paused }: { target: RollbackTarget; paused: boolean }) {
  return (
    <>
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
    </>
  );
}
