/** How a webhook attempt ended. */
export type AttemptResult = { ok: true } | { ok: false; retry: boolean; reason: string };

/**
 * What an HTTP answer means for a delivery: 2xx delivered; a redirect is not followed (a receiver's address is
 * configured, not discovered, and a redirect loop would otherwise hold a delivery forever) and counts as a failed
 * attempt; 408, 429 and 5xx are worth another attempt; other 4xx refuse the message itself, so no retry.
 */
export function answerResult(status: number, location?: string | null): AttemptResult {
  if (status >= 200 && status < 300) return { ok: true };
  if (status >= 300 && status < 400)
    return {
      ok: false,
      retry: true,
      reason: `redirect ${status}${location ? ` to ${location}` : ''} not followed`,
    };
  const retry = status === 408 || status === 429 || status >= 500;
  return { ok: false, retry, reason: `answered ${status}` };
}

/**
 * The wait before attempt `attempt + 1` (attempt counts from 1): exponential from `baseMs`, capped at `maxMs`,
 * with up to a fifth of jitter (`random` in [0, 1)) so receivers coming back are not hit by every sender at once.
 */
export function retryDelayMs(attempt: number, baseMs: number, maxMs: number, random: number): number {
  const exponential = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
  return Math.round(exponential * (1 - 0.2 * random));
}
