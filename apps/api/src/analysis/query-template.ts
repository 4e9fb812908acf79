import type { AnalysisTarget } from './analysis-run.js';

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
const KNOWN = ['name', 'namespace', 'revision'] as const;

/**
 * `value` escaped for the inside of a PromQL string literal in double or single quotes: a backslash, either
 * quote and control characters are written as escapes, so a value can never close the literal it stands in.
 * (PromQL's backtick raw strings have no escapes: templates should quote placeholders with " or '.)
 */
export function promqlStringEscape(value: string): string {
  return Array.from(value, (char) => {
    const code = char.charCodeAt(0);
    if (!(code < 0x20 || code === 0x7f || `\\"'\``.includes(char))) return char;
    switch (char) {
      case '\\':
        return '\\\\';
      case '"':
        return '\\"';
      case "'":
        return "\\'";
      case '\n':
        return '\\n';
      case '\r':
        return '\\r';
      case '\t':
        return '\\t';
      default:
        // A backtick in a value cannot be escaped in a raw string, and in a quoted one it needs no escape: \x60
        // keeps both readings harmless.
        return `\\x${code.toString(16).padStart(2, '0')}`;
    }
  }).join('');
}

/**
 * The query with `{{name}}`, `{{namespace}}` and `{{revision}}` (spaces inside the braces allowed) replaced by
 * the target's, each escaped for a PromQL string literal; or why it cannot be: a placeholder it does not know.
 */
export function renderQuery(
  query: string,
  target: AnalysisTarget,
): { query: string; error?: undefined } | { error: string; query?: undefined } {
  const unknown = [...query.matchAll(PLACEHOLDER)]
    .map((match) => match[1]!)
    .filter((name) => !(KNOWN as readonly string[]).includes(name));
  if (unknown.length > 0)
    return {
      error: `the query names ${[...new Set(unknown)].map((name) => `{{${name}}}`).join(', ')}: only {{name}}, {{namespace}} and {{revision}} are replaced`,
    };
  return {
    query: query.replace(PLACEHOLDER, (_, name: (typeof KNOWN)[number]) => promqlStringEscape(target[name])),
  };
}
