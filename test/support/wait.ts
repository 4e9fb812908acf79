/** Polls `probe` until it returns a value other than undefined/false, or fails after `timeoutMs` naming `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  { timeoutMs = 20_000, intervalMs = 100 } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}`);
    }
    await sleep(intervalMs);
  }
}

export const uniqueName = (prefix: string) =>
  `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Polls `check` for `ms` and fails, naming `what`, the first time it is false (or throws): what a test asserts when
 * letting time pass is part of its scenario (nothing more happens, the session goes on). Checks once more at the
 * end, so a passing call has seen it true after the whole `ms`.
 */
export async function staysTrue(
  what: string,
  check: () => Promise<boolean> | boolean,
  ms: number,
  { intervalMs = 100 } = {},
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const last = Date.now() >= deadline;
    if (!(await check())) throw new Error(`${what} stopped holding after ${ms - (deadline - Date.now())} ms`);
    if (last) return;
    await sleep(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
