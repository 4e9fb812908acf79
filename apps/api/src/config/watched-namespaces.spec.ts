import { describe, expect, it } from 'vitest';
import { isWatched, onlyWatchedMessage } from './watched-namespaces.js';

describe('isWatched', () => {
  it('takes every namespace without a limit, and only the listed ones with one', () => {
    expect(isWatched(undefined, 'a')).toBe(true);
    expect(isWatched(undefined, undefined)).toBe(true);
    expect(isWatched(['a', 'b'], 'b')).toBe(true);
    expect(isWatched(['a', 'b'], 'c')).toBe(false);
    expect(isWatched(['a'], undefined)).toBe(false);
  });

  it('names the watched namespaces in a refusal', () => {
    expect(onlyWatchedMessage(['a'])).toBe('this control plane watches only the namespace a');
    expect(onlyWatchedMessage(['a', 'b'])).toBe('this control plane watches only the namespaces a, b');
  });
});
