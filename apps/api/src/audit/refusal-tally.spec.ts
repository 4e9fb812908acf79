import { describe, expect, it } from 'vitest';
import { OVERFLOW_ADDRESS, RefusalTally, type TalliedRefusal } from './refusal-tally.js';

const T0 = Date.parse('2026-11-29T10:00:00Z');

function refusal(overrides: Partial<TalliedRefusal> = {}): TalliedRefusal {
  return {
    at: new Date(T0),
    door: 'rest',
    code: 401,
    reason: 'bad-token',
    subject: '',
    address: '10.0.0.1',
    message: 'Unauthorized: the token is not known',
    ...overrides,
  };
}

describe('RefusalTally', () => {
  it('folds refusals of one key in one window into a count with the first and last time and the first message', () => {
    const tally = new RefusalTally();
    tally.add(refusal({ at: new Date(T0 + 1_000) }));
    tally.add(refusal({ at: new Date(T0 + 5_000), message: 'other' }));
    tally.add(refusal({ at: new Date(T0 + 3_000) }));
    expect(tally.drain()).toEqual([
      {
        windowStart: new Date(T0),
        door: 'rest',
        code: 401,
        reason: 'bad-token',
        subject: '',
        address: '10.0.0.1',
        count: 3,
        firstAt: new Date(T0 + 1_000),
        lastAt: new Date(T0 + 5_000),
        message: 'Unauthorized: the token is not known',
      },
    ]);
    expect(tally.size).toBe(0);
  });

  it('keeps a row per window, door, code, reason, subject and address', () => {
    const tally = new RefusalTally({ windowMs: 60_000 });
    tally.add(refusal());
    tally.add(refusal({ at: new Date(T0 + 60_000) }));
    tally.add(refusal({ code: 403, reason: 'role', subject: 'viewer' }));
    tally.add(refusal({ door: 'live' }));
    tally.add(refusal({ address: '10.0.0.2' }));
    expect(tally.drain()).toHaveLength(5);
  });

  it('counts keys past the window bound into an overflow row per door, code and reason, without subject or address', () => {
    const tally = new RefusalTally({ maxKeysPerWindow: 2 });
    const outcomes = [1, 2, 3, 4, 5].map((n) => tally.add(refusal({ address: `10.0.0.${n}` })));
    expect(outcomes).toEqual(['counted', 'counted', 'overflow', 'overflow', 'overflow']);
    // An admitted key keeps its row.
    expect(tally.add(refusal({ address: '10.0.0.1' }))).toBe('counted');
    const counts = tally.drain();
    expect(counts).toHaveLength(3);
    expect(counts.find((count) => count.address === OVERFLOW_ADDRESS)).toMatchObject({
      subject: '',
      count: 3,
    });
    expect(counts.find((count) => count.address === '10.0.0.1')).toMatchObject({ count: 2 });
  });

  it('keeps the window bound after a drain, and starts afresh in the next window', () => {
    const tally = new RefusalTally({ maxKeysPerWindow: 1 });
    tally.add(refusal({ address: 'a' }));
    tally.drain();
    expect(tally.add(refusal({ address: 'b' }))).toBe('overflow');
    expect(tally.add(refusal({ address: 'b', at: new Date(T0 + 60_000) }))).toBe('counted');
  });

  it('holds a flood of distinct addresses in bounded memory', () => {
    const tally = new RefusalTally({ maxKeysPerWindow: 100 });
    for (let n = 0; n < 100_000; n++) tally.add(refusal({ address: `addr-${n}` }));
    expect(tally.size).toBe(101);
    const counts = tally.drain();
    expect(counts.reduce((sum, count) => sum + count.count, 0)).toBe(100_000);
  });

  it('drops refusals of new keys beyond maxHeld, and what does not fit back after a failed write', () => {
    const tally = new RefusalTally({ maxKeysPerWindow: 10, maxHeld: 2 });
    expect(tally.add(refusal({ address: 'a' }))).toBe('counted');
    expect(tally.add(refusal({ address: 'b' }))).toBe('counted');
    expect(tally.add(refusal({ address: 'c' }))).toBe('dropped');
    expect(tally.add(refusal({ address: 'a' }))).toBe('counted');
    const unstored = tally.drain();
    tally.add(refusal({ address: 'd' }));
    tally.add(refusal({ address: 'e' }));
    // a (2) and b (1) do not fit beside d and e.
    expect(tally.restore(unstored)).toBe(3);
    expect(tally.size).toBe(2);
  });

  it('takes back counts that could not be stored, adding them to what arrived meanwhile', () => {
    const tally = new RefusalTally();
    tally.add(refusal({ at: new Date(T0 + 2_000) }));
    const unstored = tally.drain();
    tally.add(refusal({ at: new Date(T0 + 4_000) }));
    expect(tally.restore(unstored)).toBe(0);
    expect(tally.drain()).toMatchObject([
      { count: 2, firstAt: new Date(T0 + 2_000), lastAt: new Date(T0 + 4_000) },
    ]);
  });
});
