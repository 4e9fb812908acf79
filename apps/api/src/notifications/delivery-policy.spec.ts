import { describe, expect, it } from 'vitest';
import { answerResult, retryDelayMs } from './delivery-policy.js';

describe('answerResult', () => {
  it('takes 2xx, retries redirects (not followed), 408, 429 and 5xx, and gives up other 4xx at once', () => {
    expect(answerResult(204)).toEqual({ ok: true });
    expect(answerResult(302, '/elsewhere')).toEqual({
      ok: false,
      retry: true,
      reason: 'redirect 302 to /elsewhere not followed',
    });
    expect(answerResult(500)).toMatchObject({ retry: true, reason: 'answered 500' });
    expect(answerResult(429)).toMatchObject({ retry: true });
    expect(answerResult(404)).toMatchObject({ retry: false });
  });
});

describe('retryDelayMs', () => {
  it('doubles from the base up to the cap, less up to a fifth of jitter', () => {
    expect([1, 2, 3, 4, 5, 6].map((attempt) => retryDelayMs(attempt, 1000, 10_000, 0))).toEqual([
      1000, 2000, 4000, 8000, 10_000, 10_000,
    ]);
    expect(retryDelayMs(2, 1000, 10_000, 0.5)).toBe(1800);
  });
});
