import { describe, expect, it } from 'vitest';
import { ExpiringCache } from './expiring-cache.js';

function cache(maxEntries = 10) {
  let now = 1_000;
  const clock = { advance: (ms: number) => (now += ms), now: () => now };
  return { clock, cache: new ExpiringCache<string>({ maxEntries, now: () => now }) };
}

describe('ExpiringCache', () => {
  it('returns a value until its expiry, not at or after it', () => {
    const { clock, cache: c } = cache();
    c.set('a', 'A', clock.now() + 100);
    clock.advance(99);
    expect(c.get('a')).toBe('A');
    clock.advance(1);
    expect(c.get('a')).toBeUndefined();
  });

  it('does not keep a value whose expiry is already past', () => {
    const { clock, cache: c } = cache();
    c.set('a', 'A', clock.now());
    expect(c.get('a')).toBeUndefined();
  });

  it('keeps at most maxEntries, dropping the one stored longest ago (storing a key again makes it newest)', () => {
    const { clock, cache: c } = cache(2);
    const until = clock.now() + 1_000;
    c.set('a', 'A', until);
    c.set('b', 'B', until);
    c.set('a', 'A2', until);
    c.set('c', 'C', until);
    expect([c.get('a'), c.get('b'), c.get('c')]).toEqual(['A2', undefined, 'C']);
  });

  it('shares one lookup among loads of a missing key, and keeps its value for ttlMs', async () => {
    const { clock, cache: c } = cache();
    let lookups = 0;
    let answer!: (value: string) => void;
    const lookup = () => {
      lookups++;
      return new Promise<string>((resolve) => (answer = resolve));
    };
    const both = Promise.all([c.load('a', lookup, 100), c.load('a', lookup, 100)]);
    answer('A');
    expect(await both).toEqual(['A', 'A']);
    expect(lookups).toBe(1);
    clock.advance(99);
    expect(await c.load('a', lookup, 100)).toBe('A');
    expect(lookups).toBe(1);
    clock.advance(1);
    const again = c.load('a', lookup, 100);
    answer('A2');
    expect(await again).toBe('A2');
    expect(lookups).toBe(2);
  });

  it('does not keep a failed lookup: every caller of it fails, and the next load asks again', async () => {
    const { cache: c } = cache();
    let lookups = 0;
    const failing = async () => {
      lookups++;
      throw new Error('unreachable');
    };
    const both = [c.load('a', failing, 100), c.load('a', failing, 100)];
    await expect(both[0]).rejects.toThrow('unreachable');
    await expect(both[1]).rejects.toThrow('unreachable');
    expect(lookups).toBe(1);
    expect(await c.load('a', async () => 'A', 100)).toBe('A');
  });

  it('with ttlMs 0 shares a lookup in flight but keeps nothing', async () => {
    const { cache: c } = cache();
    let lookups = 0;
    const lookup = async () => `A${++lookups}`;
    expect(await Promise.all([c.load('a', lookup, 0), c.load('a', lookup, 0)])).toEqual(['A1', 'A1']);
    expect(await c.load('a', lookup, 0)).toBe('A2');
    expect(c.get('a')).toBeUndefined();
  });
});
