/** A duration as canary pauses and analysis intervals take it: a whole number of seconds, minutes or hours. */
export const DURATION_PATTERN = '^[0-9]{1,6}(s|m|h)$';

const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000 } as const;

/** `"30s"` → 30000. Throws on text DURATION_PATTERN refuses (the schema has already refused it). */
export function durationMs(text: string): number {
  const match = /^([0-9]{1,6})(s|m|h)$/.exec(text);
  if (!match) throw new Error(`not a duration: ${JSON.stringify(text)}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}
