'use client';

import type { Nginx } from '@ngx/nginx-api';
import { useEffect, useId, useMemo, useRef } from 'react';
import { useReadySession } from '@/components/shell/session-provider';
import { hasChanges } from '@/lib/nginx/manifest-diff';
import { useYamlEdit } from '@/features/yaml-edit/yaml-edit';
import { lineStartOffset } from '@/features/yaml-edit/yaml-lines';
import { LineDiffView } from '@/components/ui/line-diff-view';
import { NumberedTextarea } from './numbered-textarea';
import { PreviousEdit } from './previous-edit';
import { YamlConflict } from './yaml-conflict';
import { YamlProblemList } from './yaml-problem-list';

/**
 * The inside of the Edit YAML dialog: the manifest, "Review changes" (local check, then the server's dry run and
 * its diff), "Apply" (closes once stored), and what a refusal said, at its lines.
 */
export function EditYamlBody({
  nginx,
  onClose,
  titleId,
}: {
  nginx: Nginx;
  onClose: () => void;
  /** The id the dialog is labelled by, for the heading. */
  titleId: string;
}) {
  const { api } = useReadySession();
  const edit = useYamlEdit(api, nginx);
  const id = useId();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const results = useRef<HTMLDivElement>(null);
  const marked = useMemo(() => new Set(edit.problems.map((p) => p.line)), [edit.problems]);

  // What a review or apply answered is below the (tall) manifest: bring it into view.
  useEffect(() => {
    if (edit.diff || edit.conflict || edit.error || edit.problems.length > 0)
      results.current?.scrollIntoView({ block: 'start' });
  }, [edit.diff, edit.conflict, edit.error, edit.problems]);

  const goTo = (line: number) => {
    const area = textarea.current;
    if (!area) return;
    const offset = lineStartOffset(edit.text, line);
    area.focus();
    area.setSelectionRange(offset, offset);
    area.scrollTop = Math.max(0, (line - 3) * parseFloat(getComputedStyle(area).lineHeight || '20'));
  };

  const apply = async () => {
    if (await edit.apply()) onClose();
  };

  return (
    <>
      <div className="dialog-body">
        <h2 id={titleId}>Edit YAML</h2>
        <p className="muted small">
          {nginx.metadata.namespace}/{nginx.metadata.name} at version {edit.base.metadata.resourceVersion}:
          applying replaces the whole object, only if nobody changed it since.
        </p>
        <div className="field">
          <label htmlFor={`${id}-manifest`}>Manifest</label>
          <NumberedTextarea
            id={`${id}-manifest`}
            value={edit.text}
            onChange={edit.setText}
            markedLines={marked}
            describedBy={`${id}-problems`}
            textareaRef={textarea}
          />
        </div>
        <div ref={results}>
          <YamlProblemList id={`${id}-problems`} problems={edit.problems} onGoTo={goTo} />
          {edit.conflict && (
            <YamlConflict conflict={edit.conflict} edit={edit.text} onLoadLatest={edit.loadLatest} />
          )}
          {edit.error && (
            <p className="alert" role="alert">
              {edit.error}
            </p>
          )}
          {edit.diff &&
            (hasChanges(edit.diff) ? (
              <section aria-label="Changes">
                <h3>What applying would change (dry run)</h3>
                <LineDiffView lines={edit.diff} label="Changes after a dry run" testId="yaml-diff" />
              </section>
            ) : (
              <p className="alert info" data-testid="yaml-diff">
                No changes: the object would stay as it is.
              </p>
            ))}
        </div>
        {edit.previousEdit !== undefined && <PreviousEdit text={edit.previousEdit} />}
      </div>
      <div className="dialog-actions">
        <span className="muted small" role="status">
          {edit.busy === 'review' ? 'Checking…' : edit.busy === 'apply' ? 'Applying…' : ''}
        </span>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
        <button type="button" onClick={() => void edit.review()} disabled={edit.busy !== undefined}>
          Review changes
        </button>
        <button
          type="button"
          className="primary"
          onClick={() => void apply()}
          disabled={edit.busy !== undefined}
        >
          Apply
        </button>
      </div>
    </>
  );
}
