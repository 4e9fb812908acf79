import { describe, expect, it } from 'vitest';
import { SlidingWindowBudget } from './sliding-window-budget.js';

const WINDOW = 10_000;

/** Takes `count` requests for `spender` at `now` and returns how many were allowed. */
function allowedOf(budget: SlidingWindowBudget, spender: string, limit: number, now: number, count: number) {
  let allowed = 0;
  for (let i = 0; i < count; i += 1) if (budget.take(spender, limit, now).allowed) allowed += 1;
  return allowed;
}

describe('SlidingWindowBudget', () => {
  it('allows `limit` requests in a window and refuses the next one for a whole window from then', () => {
    const budget = new SlidingWindowBudget(WINDOW);
    expect(allowedOf(budget, 'a', 3, 1000, 3)).toBe(3);
    expect(budget.take('a', 3, 4000)).toEqual({ allowed: false, retryAfterMs: WINDOW });
    // Refused requests are not counted, and the block holds even after the first hits left the window.
    expect(budget.take('a', 3, 12_000)).toEqual({ allowed: false, retryAfterMs: 2000 });
    expect(budget.take('a', 3, 13_999)).toEqual({ allowed: false, retryAfterMs: 1 });
    // After the block, a fresh start: the whole limit again.
    expect(allowedOf(budget, 'a', 3, 14_000, 4)).toBe(3);
  });

  it('counts over a sliding window: a request leaves it exactly one window after it was made', () => {
    const budget = new SlidingWindowBudget(WINDOW);
    expect(budget.take('a', 2, 0).allowed).toBe(true);
    expect(budget.take('a', 2, 5000).allowed).toBe(true);
    // At 10 s the request made at 0 s has left; the one at 5 s has not.
    expect(budget.take('a', 2, 10_000).allowed).toBe(true);
    expect(budget.take('a', 2, 10_001)).toEqual({ allowed: false, retryAfterMs: WINDOW });
  });

  it('keeps each spender apart', () => {
    const budget = new SlidingWindowBudget(WINDOW);
    expect(allowedOf(budget, 'a', 2, 0, 5)).toBe(2);
    expect(allowedOf(budget, 'b', 2, 0, 5)).toBe(2);
    expect(allowedOf(budget, 'c', 5, 0, 5)).toBe(5);
  });

  it('holds exactly `limit` in any window over a long steady stream, whatever the rate', () => {
    const budget = new SlidingWindowBudget(WINDOW);
    const allowedAt: number[] = [];
    // One request every 7 ms for 60 s against 100 per 10 s: far over the budget.
    for (let now = 0; now < 60_000; now += 7) if (budget.take('a', 100, now).allowed) allowedAt.push(now);
    for (let i = 0; i + 100 < allowedAt.length; i += 1)
      expect(allowedAt[i + 100]! - allowedAt[i]!).toBeGreaterThan(WINDOW);
    // Under the budget, everything is allowed, for long enough to compact the list many times.
    const steady = new SlidingWindowBudget(WINDOW);
    let refused = 0;
    for (let now = 0; now < 120_000; now += 101) if (!steady.take('a', 100, now).allowed) refused += 1;
    expect(refused).toBe(0);
  });

  it('forgets spenders idle for a window, but not blocked ones, at most once a window', () => {
    const budget = new SlidingWindowBudget(WINDOW);
    budget.take('idle', 1, 0);
    budget.take('blocked', 1, 5000);
    budget.take('blocked', 1, 5000); // blocked until 15 s
    expect(budget.size).toBe(2);
    budget.take('new', 1, 9000); // the first sweep ran at 0 s: the next is not before 10 s
    expect(budget.size).toBe(3);
    budget.take('new', 1, 11_000);
    expect(budget.size).toBe(2); // 'idle' (last seen at 0 s) went; 'blocked' and 'new' stay
    budget.take('new', 1, 25_000);
    // 'blocked' had its block end at 15 s and nothing since; 'new' just asked again.
    expect(budget.size).toBe(1);
  });
});
