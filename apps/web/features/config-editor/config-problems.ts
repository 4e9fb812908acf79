import { nginxConfigProblems, type ConfigProblem } from '@ngx/nginx-api';
import type { StatusCause } from '@/lib/api/api-client';

export type { ConfigProblem };

/** The field the API names when it refuses an Nginx's configuration. */
export const CONFIG_FIELD = 'spec.config';

// nginx's own `line N: …` after the API's prefix first, so a quoted value naming a line cannot be taken for it.
const LINE_MESSAGES = [
  /not valid nginx configuration: line (\d+): (.+)$/s,
  /^line (\d+): (.+)$/s,
  /\bline (\d+): (.+)$/s,
];

/**
 * The problem a cause on spec.config describes. The API's message ends with nginx's `line N: what` (e.g.
 * `Invalid value: "…": not valid nginx configuration: line 3: unexpected "}"`): that line and what follows it.
 * A message naming no line (too long, a schema refusal) is placed on line 1 with the whole message.
 */
export function problemOfCause(cause: StatusCause): ConfigProblem {
  const text = cause.message ?? cause.reason ?? 'invalid';
  const match = LINE_MESSAGES.map((pattern) => pattern.exec(text)).find(Boolean);
  if (match) return { line: Math.max(1, Number(match[1])), message: match[2].trim() };
  return { line: 1, message: text };
}

/** The problems of the causes on spec.config, in the order the server gave them; other fields are left out. */
export function configProblemsOfCauses(causes: readonly StatusCause[]): ConfigProblem[] {
  return causes.filter((cause) => cause.field === CONFIG_FIELD).map(problemOfCause);
}

/** The text's problems as the API would find them, without asking it: [] when nginx would read it. */
export function localConfigProblems(text: string): ConfigProblem[] {
  return nginxConfigProblems(text);
}

/**
 * Problems with their line kept inside a text of `lineCount` lines (at least 1), so an editor can mark each one:
 * a problem past the end (e.g. "unexpected end of file" on a text grown shorter since) goes on the last line.
 * Duplicates (same line and message) are dropped; the order is kept.
 */
export function placeProblems(problems: readonly ConfigProblem[], lineCount: number): ConfigProblem[] {
  const last = Math.max(1, lineCount);
  const seen = new Set<string>();
  const placed: ConfigProblem[] = [];
  for (const problem of problems) {
    const line = Math.min(Math.max(1, Math.trunc(problem.line) || 1), last);
    const key = `${line}\n${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    placed.push({ line, message: problem.message });
  }
  return placed;
}

/** Lines of a text as an editor counts them: one more than its line feeds. */
export const lineCountOf = (text: string): number => text.split('\n').length;
