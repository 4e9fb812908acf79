/**
 * The lines of an app's output logged at error level (or worse): JSON lines whose `level` says so (the app's
 * default LOG_FORMAT=json writes `"level":"error"`, lower case) and text lines with Nest's `ERROR`/`FATAL` marker.
 * A sentinel that looks for "no error" in the output must look with this: a case-sensitive /\bERROR\b/ never
 * matches a JSON log, so it would pass whatever the app logged (test/log-sentinels.test.ts is its positive control).
 */
export function errorLines(output: string): string[] {
  return output.split('\n').filter((line) => {
    const text = line.trim();
    if (text.startsWith('{')) {
      try {
        const level = (JSON.parse(text) as { level?: unknown }).level;
        return level === 'error' || level === 'fatal';
      } catch {
        return false;
      }
    }
    return /\b(ERROR|FATAL)\b/.test(text);
  });
}
