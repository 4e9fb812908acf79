'use client';

import dynamic from 'next/dynamic';
import { useId, useMemo } from 'react';
import { lineCountOf, placeProblems, type ConfigProblem } from '@/features/config-editor/config-problems';
import { ConfigProblemList } from './config-problem-list';
import './config-editor.css';

// CodeMirror is loaded only where an editor is shown, and only in the browser (it measures the DOM).
const CodeMirrorView = dynamic(() => import('./codemirror-view'), {
  ssr: false,
  loading: () => (
    <p className="config-editor-loading muted small" role="status">
      Loading editor…
    </p>
  ),
});

/** Props of NginxConfigEditor. */
export interface NginxConfigEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** Shown on their lines (lines past the end go on the last one) and listed under the editor. */
  problems?: readonly ConfigProblem[];
  readOnly?: boolean;
  /** The editable element's accessible name; "nginx config" unless given. */
  label?: string;
}

/**
 * A controlled nginx configuration editor (CodeMirror 6, nginx highlighting, line numbers): every problem is
 * marked on its line and also listed as text (`data-testid="config-problem"`, `data-line`), so it can be read
 * without hovering.
 */
export function NginxConfigEditor({
  value,
  onChange,
  problems = [],
  readOnly = false,
  label = 'nginx config',
}: NginxConfigEditorProps) {
  const listId = useId();
  const placed = useMemo(() => placeProblems(problems, lineCountOf(value)), [problems, value]);
  return (
    <div className="config-editor" data-invalid={placed.length > 0 ? 'true' : undefined}>
      <CodeMirrorView
        value={value}
        onChange={onChange}
        problems={placed}
        readOnly={readOnly}
        label={label}
        describedBy={listId}
      />
      <ConfigProblemList problems={placed} id={listId} />
    </div>
  );
}
