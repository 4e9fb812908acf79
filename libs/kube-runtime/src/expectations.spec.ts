import { describe, expect, it } from 'vitest';
import { Expectations } from './expectations.js';
import { FakeClock } from './testing/fake-clock.js';

describe('Expectations', () => {
  it('is satisfied for a key it knows nothing about', () => {
    expect(new Expectations(new FakeClock()).satisfied('default/web')).toBe(true);
  });

  it('holds a key until every expected creation is observed', () => {
    const expectations = new Expectations(new FakeClock());
    expectations.expectCreations('default/web', 2);
    expect(expectations.satisfied('default/web')).toBe(false);
    expectations.creationObserved('default/web');
    expect(expectations.pending('default/web')).toEqual({ creations: 1, deletions: [] });
    expectations.creationObserved('default/web');
    expect(expectations.satisfied('default/web')).toBe(true);
    expectations.creationObserved('default/web'); // an extra observation does not go below zero
    expect(expectations.pending('default/web')?.creations).toBe(0);
  });

  it('tracks deletions by object key, so a repeated delete event counts once', () => {
    const expectations = new Expectations(new FakeClock());
    expectations.expectDeletions('default/web', ['default/web-a', 'default/web-b']);
    expectations.deletionObserved('default/web', 'default/web-a');
    expectations.deletionObserved('default/web', 'default/web-a');
    expect(expectations.satisfied('default/web')).toBe(false);
    expectations.deletionObserved('default/web', 'default/web-b');
    expect(expectations.satisfied('default/web')).toBe(true);
  });

  it('gives up on an unmet expectation after its TTL (5 minutes by default)', () => {
    const clock = new FakeClock();
    const expectations = new Expectations(clock);
    expectations.expectCreations('k', 1);
    clock.advance(5 * 60 * 1000);
    expect(expectations.satisfied('k')).toBe(false);
    clock.advance(1);
    expect(expectations.satisfied('k')).toBe(true);
  });

  it('keeps keys apart and forgets a deleted key', () => {
    const expectations = new Expectations(new FakeClock());
    expectations.expectCreations('a', 1);
    expectations.expectCreations('b', 1);
    expectations.creationObserved('a');
    expect(expectations.satisfied('a')).toBe(true);
    expect(expectations.satisfied('b')).toBe(false);
    expectations.delete('b');
    expect(expectations.satisfied('b')).toBe(true);
    expect(expectations.pending('b')).toBeUndefined();
  });
});
