import { describe, expect, it } from 'vitest';
import { DURATION_PATTERN, durationMs } from './duration.js';

describe('durationMs', () => {
  it.each([
    ['0s', 0],
    ['30s', 30_000],
    ['5m', 300_000],
    ['2h', 7_200_000],
  ])('reads %s', (text, ms) => {
    expect(durationMs(text)).toBe(ms);
    expect(new RegExp(DURATION_PATTERN).test(text)).toBe(true);
  });

  it.each(['', '1d', '1.5s', '-1s', '30', 's', '1234567s'])('refuses %j as the schema does', (text) => {
    expect(() => durationMs(text)).toThrow();
    expect(new RegExp(DURATION_PATTERN).test(text)).toBe(false);
  });
});
