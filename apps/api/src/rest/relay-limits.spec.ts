import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { boundedWatchTimeout, MAX_WATCH_SECONDS, WatchSlots } from './relay-limits.js';

describe('relay limits', () => {
  it('lowers a watch timeout past the bound to it, and keeps smaller ones', () => {
    expect(boundedWatchTimeout(undefined)).toBeUndefined();
    expect(boundedWatchTimeout('30')).toBe('30');
    expect(boundedWatchTimeout('9999999999')).toBe(String(MAX_WATCH_SECONDS));
  });

  it('gives each token its watch slots, refuses one more with 429, and takes each back once', () => {
    const slots = new WatchSlots(2);
    const first = slots.take('ada');
    slots.take('ada');
    expect(() => slots.take('ada')).toThrow(StatusException);
    expect(slots.take('eve')).toBeTypeOf('function');
    first();
    first();
    expect(slots.held('ada')).toBe(1);
    slots.take('ada');
    expect(slots.held('ada')).toBe(2);
  });
});
