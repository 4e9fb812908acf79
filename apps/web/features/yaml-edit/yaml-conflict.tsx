import type { YamlConflict as Conflict } from '@/features/yaml-edit/yaml-edit';
import { hasChanges } from '@/lib/nginx/manifest-diff';
import { CopyButton } from './copy-button';
import { LineDiffView } from '@/components/ui/line-diff-view';

/**
 * A write refused because the Nginx changed since it was read: nothing was overwritten. Shows how the object
 * changed in between (as read → as it is now), offers to copy the person's edit and to start again from the
 * latest object (the edit stays available after that too).
 */
export function YamlConflict({
  conflict,
  edit,
  onLoadLatest,
}: {
  conflict: Conflict;
  edit: string;
  onLoadLatest: () => void;
}) {
  return (
    <div className="alert yaml-conflict" role="alert" data-testid="yaml-conflict">
      <strong>Someone changed this Nginx since you opened it; nothing was overwritten.</strong>
      {hasChanges(conflict.lines) ? (
        <>
          <p>What changed in between (as you read it → as it is now):</p>
          <LineDiffView lines={conflict.lines} label="Changed in between" testId="yaml-conflict-diff" />
        </>
      ) : (
        <p>Only its status or version moved; load the latest and apply again.</p>
      )}
      <p>Load latest starts again from the object as it is now; your edit stays beside it to copy from.</p>
      <div className="form-actions">
        <button type="button" className="primary" onClick={onLoadLatest}>
          Load latest
        </button>
        <CopyButton text={edit} label="Copy my edit" />
      </div>
    </div>
  );
}
