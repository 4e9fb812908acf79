'use client';

import { setDiagnostics } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { useEffect, useRef } from 'react';
import type { ConfigProblem } from '@/features/config-editor/config-problems';
import { diagnosticsOf, editorExtensions, readOnlyExtension } from './codemirror-setup';

/** Props of the CodeMirror view (see NginxConfigEditor, which loads this module only in the browser). */
export interface CodeMirrorViewProps {
  value: string;
  onChange: (value: string) => void;
  problems: readonly ConfigProblem[];
  readOnly: boolean;
  label: string;
  /** The id of what describes the content (the problem list). */
  describedBy?: string;
}

/**
 * A controlled CodeMirror 6 editor: shows `value`, reports every edit through `onChange`, marks `problems` as
 * lint diagnostics on their lines. A `value` that differs from the document (a reset, a reload) replaces it.
 */
export default function CodeMirrorView({
  value,
  onChange,
  problems,
  readOnly,
  label,
  describedBy,
}: CodeMirrorViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const readOnlyCompartment = useRef(new Compartment());
  const latestOnChange = useRef(onChange);
  // The document as last reported or set: an edit echoed back as `value` must not be dispatched again.
  const known = useRef(value);

  useEffect(() => {
    latestOnChange.current = onChange;
  }, [onChange]);

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: known.current,
        extensions: editorExtensions({
          label,
          describedBy,
          readOnly: readOnlyCompartment.current,
          onDocChange: (text) => {
            if (text === known.current) return;
            known.current = text;
            latestOnChange.current(text);
          },
        }),
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // Made once per mount: the label is read then, later values flow in through the effects below.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (!editor || value === editor.state.doc.toString()) return;
    known.current = value;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({
      effects: readOnlyCompartment.current.reconfigure(readOnlyExtension(readOnly)),
    });
  }, [readOnly]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    editor.dispatch(setDiagnostics(editor.state, diagnosticsOf(editor.state.doc, problems)));
  }, [problems, value]);

  return <div ref={host} className="config-editor-host" />;
}
