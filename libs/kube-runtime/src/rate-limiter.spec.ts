import { describe, expect, it } from 'vitest';
import {
  BucketRateLimiter,
  ItemExponentialFailureRateLimiter,
  MaxOfRateLimiter,
  defaultControllerRateLimiter,
} from './rate-limiter.js';
import { FakeClock } from './testing/fake-clock.js';
import { TokenBucket, sleep } from './token-bucket.js';

describe('ItemExponentialFailureRateLimiter', () => {
  it('doubles from the base per failure of the same item and caps at the maximum', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    const delays = Array.from({ length: 20 }, () => limiter.when('a'));
    expect(delays.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(delays[17]).toBe(655_360);
    expect(delays[18]).toBe(1_000_000);
    expect(delays[19]).toBe(1_000_000);
    expect(limiter.numRequeues('a')).toBe(20);
  });

  it('tracks items separately and starts over after forget', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1000);
    limiter.when('a');
    limiter.when('a');
    expect(limiter.when('b')).toBe(5);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
    expect(limiter.when('a')).toBe(5);
  });

  it('never overflows to Infinity or NaN after very many failures', () => {
    const limiter = new ItemExponentialFailureRateLimiter<string>(5, 1_000_000);
    let last = 0;
    for (let i = 0; i < 2000; i++) last = limiter.when('x');
    expect(last).toBe(1_000_000);
  });
});

describe('TokenBucket', () => {
  it('allows a burst at once, then spaces tokens at 1/qps', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 3, clock);
    expect([bucket.reserve(), bucket.reserve(), bucket.reserve()]).toEqual([0, 0, 0]);
    expect(bucket.reserve()).toBeCloseTo(100);
    expect(bucket.reserve()).toBeCloseTo(200);
  });

  it('refills over time up to the burst and no further', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 2, clock);
    bucket.reserve();
    bucket.reserve();
    clock.advance(10_000);
    expect([bucket.reserve(), bucket.reserve()]).toEqual([0, 0]);
    expect(bucket.reserve()).toBeCloseTo(100);
  });

  it('takeWhenFree() uses only free tokens, after every reserving caller', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(10, 2, clock);
    let low = false;
    await bucket.takeWhenFree(); // a free token: at once
    expect(bucket.reserve()).toBe(0);
    expect(bucket.reserve()).toBeCloseTo(100); // normal callers borrow ahead
    const waiting = bucket.takeWhenFree().then(() => (low = true));
    clock.advance(100);
    await Promise.resolve();
    expect(low).toBe(false); // that token went to the borrower
    expect(bucket.reserve()).toBeCloseTo(100); // and a normal caller arriving later still goes first
    clock.advance(200);
    await waiting;
    expect(low).toBe(true);
  });

  it.each([
    [0, 1],
    [-1, 1],
    [Number.NaN, 1],
    [10, 0],
    [10, 1.5],
  ])('rejects qps=%s burst=%s', (qps, burst) => {
    expect(() => new TokenBucket(qps, burst)).toThrow(RangeError);
  });

  it('take() waits for its token and can be aborted', async () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket(1, 1, clock);
    await bucket.take();
    let done = false;
    const waiting = bucket.take().then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    clock.advance(1000);
    await waiting;
    expect(done).toBe(true);

    const controller = new AbortController();
    const aborted = bucket.take(controller.signal);
    controller.abort(new Error('stopped'));
    await expect(aborted).rejects.toThrow('stopped');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('sleep() rejects at once on an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    await expect(sleep(10, new FakeClock(), controller.signal)).rejects.toThrow('gone');
  });
});

describe('MaxOfRateLimiter and the default controller limiter', () => {
  it('takes the longest delay of its limiters', () => {
    const clock = new FakeClock();
    const limiter = new MaxOfRateLimiter<string>(
      new ItemExponentialFailureRateLimiter<string>(5, 1_000_000),
      new BucketRateLimiter<string>(10, 2, clock),
    );
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('a')).toBe(10);
    expect(limiter.when('b')).toBeCloseTo(100); // bucket exhausted: its delay dominates
    expect(limiter.numRequeues('a')).toBe(2);
    limiter.forget('a');
    expect(limiter.numRequeues('a')).toBe(0);
  });

  it('defaults to 5 ms per-item backoff and a 10 qps / burst 100 bucket', () => {
    const clock = new FakeClock();
    const limiter = defaultControllerRateLimiter<string>(clock);
    const delays = Array.from({ length: 100 }, (_, i) => limiter.when(`item-${i}`));
    expect(new Set(delays)).toEqual(new Set([5]));
    expect(limiter.when('item-100')).toBeCloseTo(100);
  });
});
