/**
 * Spec fields the form edits as lines of text: spec.nodeSelector (`key=value` a line) and
 * spec.strategy.canary.steps (one step a line: `20%` sets the weight, `pause 5m` or `pause` waits (until
 * promoted), `analysis <template>` runs an entry of spec.analysis). A line that does not parse is sent as it
 * stands, so the server's schema check names it.
 */

/** `key=value` lines as a label map; blank lines are skipped, a line without `=` is a key with an empty value. */
export function parseNodeSelector(text: string): Record<string, string> | undefined {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  if (lines.length === 0) return undefined;
  return Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf('=');
      return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    }),
  );
}

/** A label map as `key=value` lines ('' for none or for anything that is not a map). */
export function formatNodeSelector(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return '';
  return Object.entries(value as Record<string, unknown>)
    .map(([key, v]) => `${key}=${String(v)}`)
    .join('\n');
}

export type CanaryStep =
  { setWeight: number } | { pause: { duration?: string } } | { analysis: { templateName: string } };

function parseStep(line: string): CanaryStep | string {
  const weight = /^(\d+)\s*%$/.exec(line);
  if (weight) return { setWeight: Number(weight[1]) };
  const pause = /^pause(?:\s+(\S+))?$/.exec(line);
  if (pause) return { pause: pause[1] ? { duration: pause[1] } : {} };
  const analysis = /^analysis\s+(\S+)$/.exec(line);
  if (analysis) return { analysis: { templateName: analysis[1]! } };
  return line;
}

/** Step lines as spec.strategy.canary.steps, in order; undefined when there are none. */
export function parseCanarySteps(text: string): (CanaryStep | string)[] | undefined {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.length ? lines.map(parseStep) : undefined;
}

function formatStep(step: unknown): string {
  if (typeof step !== 'object' || step === null) return String(step);
  const s = step as {
    setWeight?: unknown;
    pause?: { duration?: unknown };
    analysis?: { templateName?: unknown };
  };
  if (s.setWeight !== undefined) return `${String(s.setWeight)}%`;
  if (s.pause !== undefined) return s.pause?.duration ? `pause ${String(s.pause.duration)}` : 'pause';
  if (s.analysis !== undefined) return `analysis ${String(s.analysis?.templateName ?? '')}`;
  return JSON.stringify(step);
}

/** spec.strategy.canary.steps as step lines ('' for none). */
export function formatCanarySteps(value: unknown): string {
  return Array.isArray(value) ? value.map(formatStep).join('\n') : '';
}

/** The line-edited fields by spec path: how the form's text becomes the spec value and back. */
export const LINE_FIELDS: Record<
  string,
  { parse: (text: string) => unknown; format: (value: unknown) => string }
> = {
  nodeSelector: { parse: parseNodeSelector, format: formatNodeSelector },
  'strategy.canary.steps': { parse: parseCanarySteps, format: formatCanarySteps },
};
