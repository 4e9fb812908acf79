import { describe, expect, it } from 'vitest';
import { humanAge, parseGoDuration } from './go-duration.js';

describe('parseGoDuration', () => {
  it.each([
    ['0', 0],
    ['30s', 30_000],
    ['1h30m', 5_400_000],
    ['500ms', 500],
    ['1.5m', 90_000],
  ])('reads %s', (text, ms) => expect(parseGoDuration(text)).toBe(ms));
  it.each(['', '5', '5x', 's', '-1s', '1h 30m', '1d'])('refuses %j', (text) =>
    expect(parseGoDuration(text)).toBeUndefined(),
  );
});

describe('humanAge', () => {
  const at = (seconds: number) => humanAge(0, seconds * 1000);
  it('says it as kubectl’s AGE column does', () => {
    expect([at(-5), at(-0.5), at(45), at(119), at(192), at(600), at(95 * 60), at(5 * 3600 + 180)]).toEqual([
      '<invalid>',
      '0s',
      '45s',
      '119s',
      '3m12s',
      '10m',
      '95m',
      '5h3m',
    ]);
    expect([at(30 * 3600), at(76 * 3600), at(120 * 86400), at(760 * 86400), at(3000 * 86400)]).toEqual([
      '30h',
      '3d4h',
      '120d',
      '2y30d',
      '8y',
    ]);
  });
});
