import { describe, expect, it } from 'vitest';
import { linkedSignal } from './abort-scope.js';

describe('linkedSignal', () => {
  it('aborts with the reason of the first source that does, or on its own abort', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkedSignal(a.signal, undefined, b.signal);
    b.abort(new Error('b went'));
    expect(linked.signal.reason).toEqual(new Error('b went'));
    const own = linkedSignal(a.signal);
    own.abort('timeout');
    expect(own.signal.reason).toBe('timeout');
    expect(linkedSignal(AbortSignal.abort('already')).signal.reason).toBe('already');
  });

  it('leaves nothing on a long-lived source once disposed', () => {
    const term = new AbortController();
    let listeners = 0;
    const add = term.signal.addEventListener.bind(term.signal);
    const remove = term.signal.removeEventListener.bind(term.signal);
    term.signal.addEventListener = ((...args: Parameters<typeof add>) => (
      listeners++,
      add(...args)
    )) as typeof add;
    term.signal.removeEventListener = ((...args: Parameters<typeof remove>) => (
      listeners--,
      remove(...args)
    )) as typeof remove;
    for (let i = 0; i < 1000; i++) linkedSignal(term.signal).dispose();
    expect(listeners).toBe(0);
    const kept = linkedSignal(term.signal);
    term.abort();
    expect(kept.signal.aborted).toBe(true);
  });
});
