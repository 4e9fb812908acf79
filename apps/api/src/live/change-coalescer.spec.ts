import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ChangeCoalescer } from './change-coalescer.js';

describe('ChangeCoalescer', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends the first change of an object once the turn ends, then at most one per interval, the last state winning', () => {
    const sent: string[] = [];
    const coalescer = new ChangeCoalescer<string>(
      (batch) => sent.push(...batch),
      () => true,
      100,
      () => Date.now(),
    );
    coalescer.offer('a', 'a1');
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(0);
    expect(sent).toEqual(['a1']);
    for (let i = 2; i <= 50; i++) coalescer.offer('a', `a${i}`);
    coalescer.offer('b', 'b1');
    vi.advanceTimersByTime(0);
    expect(sent).toEqual(['a1', 'b1']);
    expect(coalescer.size).toBe(1);
    vi.advanceTimersByTime(100);
    expect(sent).toEqual(['a1', 'b1', 'a50']);
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(3);
  });

  it('keeps at most one change per object while the client cannot take more, and sends them when it can', () => {
    const sent: string[] = [];
    let ready = false;
    const coalescer = new ChangeCoalescer<string>(
      (batch) => sent.push(...batch),
      () => ready,
      100,
      () => Date.now(),
    );
    for (let i = 0; i < 10_000; i++) coalescer.offer(`pod-${i % 20}`, `v${i}`);
    expect(sent).toEqual([]);
    expect(coalescer.size).toBe(20);
    ready = true;
    vi.advanceTimersByTime(100);
    expect(sent).toHaveLength(20);
    expect(sent).toContain('v9999');
  });

  it('forgets discarded keys and stops on close', () => {
    const sent: string[] = [];
    const coalescer = new ChangeCoalescer<string>(
      (batch) => sent.push(...batch),
      () => true,
      100,
      () => Date.now(),
    );
    coalescer.offer('s1/a', 'x');
    vi.advanceTimersByTime(0);
    coalescer.offer('s1/a', 'y');
    coalescer.discard((key) => key.startsWith('s1/'));
    vi.advanceTimersByTime(200);
    expect(sent).toEqual(['x']);
    coalescer.close();
    coalescer.offer('s2/a', 'z');
    vi.advanceTimersByTime(200);
    expect(sent).toEqual(['x']);
  });

  it('sends what is offered in one turn in one batch, in the order first offered', () => {
    const batches: string[][] = [];
    const coalescer = new ChangeCoalescer<string>(
      (batch) => batches.push(batch),
      () => true,
      100,
      () => Date.now(),
    );
    for (let i = 0; i < 100; i++) coalescer.offer(`pod-${i}`, `v${i}`);
    coalescer.offer('pod-0', 'v0-again');
    vi.advanceTimersByTime(0);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toHaveLength(100);
    expect(batches[0]!.slice(0, 2)).toEqual(['v0-again', 'v1']);
    vi.advanceTimersByTime(1000);
    expect(batches).toHaveLength(1);
  });
});
