const UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};
const DURATION = /^(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|ms|s|m|h))+$/;
const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g;

/**
 * A Go duration as kubectl's duration flags take it (`30s`, `1h30m`, `500ms`, `0`), in milliseconds; undefined when
 * it is not one (a bare number other than 0 needs a unit, as in Go). Pure.
 */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  if (!DURATION.test(text)) return undefined;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(PART)) ms += Number(amount) * UNITS[unit!]!;
  return ms;
}

/**
 * How old something created at `then` is at `now`, as kubectl's AGE column says it (apimachinery's
 * HumanDuration): `45s`, `3m12s`, `95m`, `5h3m`, `30h`, `3d4h`, `120d`, `2y30d`. Pure.
 */
export function humanAge(then: number, now: number): string {
  const seconds = Math.floor((now - then) / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (days < 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (years < 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}
