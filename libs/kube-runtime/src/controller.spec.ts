import { describe, expect, it } from 'vitest';
import { Controller } from './controller.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiter.js';
import { RateLimitingQueue } from './workqueue/rate-limiting-queue.js';

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));
/** Waits until `done()` holds (polling), so assertions do not depend on how busy the machine is. */
async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await tick(1);
  }
}
const fastQueue = () =>
  new RateLimitingQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter(1, 4) });

describe('Controller', () => {
  it('starts workers only after the caches are synced', async () => {
    const queue = fastQueue();
    const seen: string[] = [];
    let markSynced!: (value: boolean) => void;
    const synced = new Promise<boolean>((resolve) => (markSynced = resolve));
    const controller = new Controller({
      name: 't',
      queue,
      waitForSync: () => synced,
      reconcile: async (key) => void seen.push(key),
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('a');
    await tick();
    expect(seen).toEqual([]);
    markSynced(true);
    await until(() => seen.length > 0);
    expect(seen).toEqual(['a']);
    abort.abort();
    await running;
  });

  it('never reconciles one key in two workers at once, and reprocesses a key changed meanwhile', async () => {
    const queue = fastQueue();
    let active = 0;
    let maxActive = 0;
    let calls = 0;
    const controller = new Controller({
      name: 't',
      queue,
      workers: 4,
      waitForSync: async () => true,
      reconcile: async () => {
        calls++;
        active++;
        maxActive = Math.max(maxActive, active);
        await tick(10);
        active--;
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('same');
    await tick(2);
    queue.add('same');
    queue.add('same');
    await until(() => calls === 2 && active === 0);
    await tick(20);
    expect(maxActive).toBe(1);
    expect(calls).toBe(2);
    abort.abort();
    await running;
  });

  it('retries a failing key with backoff, then drops it after maxRetries and keeps running', async () => {
    const queue = fastQueue();
    const attempts: Record<string, number> = {};
    const dropped: string[] = [];
    const controller = new Controller({
      name: 't',
      queue,
      workers: 2,
      maxRetries: 3,
      waitForSync: async () => true,
      metrics: { dropped: (key) => void dropped.push(key) },
      reconcile: async (key) => {
        attempts[key] = (attempts[key] ?? 0) + 1;
        if (key === 'bad') throw new Error('boom');
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('bad');
    await until(() => dropped.length === 1);
    queue.add('good');
    await until(() => attempts.good === 1);
    expect(attempts).toEqual({ bad: 4, good: 1 });
    expect(dropped).toEqual(['bad']);
    expect(queue.numRequeues('bad')).toBe(0);
    abort.abort();
    await running;
  });

  it('honours requeueAfter and forgets failures after a success', async () => {
    const queue = fastQueue();
    let calls = 0;
    const controller = new Controller({
      name: 't',
      queue,
      waitForSync: async () => true,
      reconcile: async () => {
        calls++;
        if (calls === 1) throw new Error('transient');
        if (calls === 2) return { requeueAfterMs: 15 };
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('k');
    await until(() => calls === 2);
    expect(queue.numRequeues('k')).toBe(0);
    await until(() => calls === 3);
    abort.abort();
    await running;
  });

  it('on abort waits for reconciles in flight before resolving', async () => {
    const queue = fastQueue();
    let finished = false;
    const controller = new Controller({
      name: 't',
      queue,
      waitForSync: async () => true,
      reconcile: async () => {
        await tick(20);
        finished = true;
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('slow');
    await tick(2);
    abort.abort();
    await running;
    expect(finished).toBe(true);
  });
});
