import { useMemo } from 'react';
import { LineDiffView } from '@/components/ui/line-diff-view';
import { hasChanges, lineDiff } from '@/lib/nginx/manifest-diff';

/**
 * Says a save was refused because the Nginx changed since the editor opened (nothing was overwritten), shows
 * how its config changed meanwhile, and offers to take theirs (Reload) or keep the draft against the new version.
 */
export function ConfigConflict({
  before,
  now,
  onReload,
  onKeep,
}: {
  before: string;
  now: string;
  onReload: () => void;
  onKeep: () => void;
}) {
  const lines = useMemo(() => lineDiff(before, now), [before, now]);
  return (
    <div className="alert config-conflict" role="alert" data-testid="config-conflict">
      <strong>Someone changed this Nginx since you opened the editor; nothing was saved.</strong>
      {hasChanges(lines) ? (
        <>
          <p>Its config changed meanwhile:</p>
          <LineDiffView lines={lines} label="Config changed meanwhile" testId="config-conflict-diff" />
        </>
      ) : (
        <p>Its config is the same; something else in it changed.</p>
      )}
      <div className="form-actions">
        <button type="button" onClick={onReload}>
          Reload
        </button>
        <button type="button" onClick={onKeep}>
          Keep my edit
        </button>
      </div>
    </div>
  );
}
