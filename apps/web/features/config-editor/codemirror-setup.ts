import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { indentOnInput, StreamLanguage, syntaxHighlighting } from '@codemirror/language';
import { nginx } from '@codemirror/legacy-modes/mode/nginx';
import { lintGutter, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState, type Extension, type Text } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { classHighlighter } from '@lezer/highlight';
import type { ConfigProblem } from '@/features/config-editor/config-problems';

/**
 * The CSP nonce of this page, as Next.js put it on its own scripts (proxy.ts makes one per response). Browsers
 * hide a nonce attribute's value once parsed, but keep it in the `nonce` property. Undefined in development,
 * where inline styles are allowed anyway.
 */
export function pageNonce(): string | undefined {
  const script = document.querySelector<HTMLScriptElement>('script[nonce]');
  return script?.nonce || undefined;
}

const nginxLanguage = StreamLanguage.define(nginx);

/**
 * What the editor is made of: nginx highlighting as `tok-*` classes (coloured by config-editor.css from the
 * page's CSS variables, so both colour schemes keep their contrast), line numbers, undo history, a lint gutter,
 * and CodeMirror's own styles injected with the page's nonce (a `<style>` without it is refused by the CSP).
 * Tab is left to move focus, so the editor is no keyboard trap.
 */
export function editorExtensions(options: {
  label: string;
  describedBy?: string;
  readOnly: Compartment;
  onDocChange: (text: string) => void;
}): Extension[] {
  const nonce = pageNonce();
  return [
    ...(nonce ? [EditorView.cspNonce.of(nonce)] : []),
    lineNumbers(),
    history(),
    keymap.of([...defaultKeymap, ...historyKeymap]),
    nginxLanguage,
    indentOnInput(),
    syntaxHighlighting(classHighlighter),
    lintGutter(),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({
      'aria-label': options.label,
      spellcheck: 'false',
      ...(options.describedBy ? { 'aria-describedby': options.describedBy } : {}),
    }),
    options.readOnly.of(readOnlyExtension(false)),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) options.onDocChange(update.state.doc.toString());
    }),
  ];
}

/** A read-only editor cannot be changed nor typed into, but can still be focused, read and selected. */
export const readOnlyExtension = (readOnly: boolean): Extension => [
  EditorState.readOnly.of(readOnly),
  EditorView.contentAttributes.of({ 'aria-readonly': String(readOnly) }),
];

/** Problems as lint diagnostics covering their whole line (lines already within the document). */
export function diagnosticsOf(doc: Text, problems: readonly ConfigProblem[]): Diagnostic[] {
  return problems.map((problem) => {
    const line = doc.line(Math.min(Math.max(1, problem.line), doc.lines));
    return { from: line.from, to: line.to, severity: 'error', message: problem.message };
  });
}
