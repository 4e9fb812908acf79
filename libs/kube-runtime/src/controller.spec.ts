import { describe, expect, it, vi } from 'vitest';
import { Controller } from './controller.js';
import { ItemExponentialFailureRateLimiter } from './rate-limiter.js';
import { RateLimitingQueue } from './workqueue/rate-limiting-queue.js';

/** Waits until `done()` holds (polling), so assertions do not depend on how busy the machine is. */
function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  return vi.waitFor(
    () => {
      if (!done()) throw new Error('condition not reached in time');
    },
    { timeout: timeoutMs, interval: 1 },
  );
}
const fastQueue = () =>
  new RateLimitingQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter(1, 4) });

describe('Controller', () => {
  it('starts workers only after the caches are synced', async () => {
    const queue = fastQueue();
    const seen: string[] = [];
    let markSynced!: (value: boolean) => void;
    const synced = new Promise<boolean>((resolve) => (markSynced = resolve));
    let syncing = false;
    const controller = new Controller({
      name: 't',
      queue,
      waitForSync: () => ((syncing = true), synced),
      reconcile: async (key) => void seen.push(key),
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('a');
    await until(() => syncing); // the controller waits for the caches
    expect(seen).toEqual([]);
    expect(queue.len()).toBe(1); // no worker took the key
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
    let others = 0;
    const releases: (() => void)[] = [];
    const controller = new Controller({
      name: 't',
      queue,
      workers: 4,
      waitForSync: async () => true,
      reconcile: async (key) => {
        if (key === 'other') return void others++;
        calls++;
        active++;
        maxActive = Math.max(maxActive, active);
        await new Promise<void>((resolve) => releases.push(resolve)); // held until the test lets it return
        active--;
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('same');
    await until(() => active === 1);
    queue.add('same');
    queue.add('same');
    // A free worker takes 'other', queued after 'same': had 'same' been handed out again, it would be first.
    queue.add('other');
    await until(() => others === 1);
    expect(calls).toBe(1);
    releases[0]!();
    await until(() => calls === 2);
    releases[1]!();
    await until(() => active === 0);
    queue.add('other'); // likewise: a third run of 'same' would have been queued before it
    await until(() => others === 2);
    expect(maxActive).toBe(1);
    expect(calls).toBe(2);
    abort.abort();
    await running;
  });

  it('retries a failing key with backoff, then drops it after an explicit maxRetries and keeps running', async () => {
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

  it('never forgets a failing key by default: it is retried past client-go’s old 15 tries, at the capped delay', async () => {
    const queue = new RateLimitingQueue<string>({ rateLimiter: new ItemExponentialFailureRateLimiter(1, 2) });
    let attempts = 0;
    const dropped: string[] = [];
    const controller = new Controller({
      name: 't',
      queue,
      waitForSync: async () => true,
      metrics: { dropped: (key) => void dropped.push(key) },
      reconcile: async () => {
        attempts++;
        throw new Error('refused');
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('k');
    await until(() => attempts >= 40);
    expect(dropped).toEqual([]);
    expect(queue.numRequeues('k')).toBeGreaterThanOrEqual(39);
    abort.abort();
    await running;
  });

  it('treats { requeue: true } as a rate-limited retry that is not an error', async () => {
    const queue = fastQueue();
    const results: string[] = [];
    let calls = 0;
    const controller = new Controller({
      name: 't',
      queue,
      waitForSync: async () => true,
      metrics: { reconciled: (result) => void results.push(result) },
      reconcile: async () => (++calls < 3 ? { requeue: true as const } : undefined),
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('k');
    await until(() => calls === 3);
    expect(results).toEqual(['requeue', 'requeue', 'success']);
    expect(queue.numRequeues('k')).toBe(0);
    abort.abort();
    await running;
  });

  it('reports { requeueAfterMs } as requeue_after, and how many workers are busy as they take and finish keys', async () => {
    const queue = fastQueue();
    const results: string[] = [];
    const busy: number[] = [];
    let calls = 0;
    const release: (() => void)[] = [];
    const controller = new Controller({
      name: 't',
      queue,
      workers: 2,
      waitForSync: async () => true,
      metrics: {
        reconciled: (result) => void results.push(result),
        busyWorkers: (count) => void busy.push(count),
      },
      reconcile: async () => {
        calls++;
        await new Promise<void>((resolve) => release.push(resolve));
        return calls <= 2 ? { requeueAfterMs: 60_000 } : undefined;
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('a');
    queue.add('b');
    await until(() => release.length === 2);
    expect(busy).toEqual([1, 2]);
    for (const resolve of release.splice(0)) resolve();
    await until(() => results.length === 2);
    expect(results).toEqual(['requeue_after', 'requeue_after']);
    expect(busy).toEqual([1, 2, 1, 0]);
    abort.abort();
    await running;
  });

  it('on abort takes no further key, drops the backlog, and tells the reconcile in flight through its signal', async () => {
    const queue = fastQueue();
    const seen: string[] = [];
    const results: string[] = [];
    let signalSeen: AbortSignal | undefined;
    const controller = new Controller({
      name: 't',
      queue,
      workers: 1,
      waitForSync: async () => true,
      metrics: { reconciled: (result) => void results.push(result) },
      reconcile: async (key, signal) => {
        seen.push(key);
        signalSeen = signal;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        throw signal.reason;
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    for (const key of ['first', 'second', 'third']) queue.add(key);
    await until(() => seen.length === 1);
    abort.abort(new Error('term over'));
    await running;
    expect(seen).toEqual(['first']);
    expect(signalSeen?.aborted).toBe(true);
    expect(results).toEqual(['aborted']);
    expect(queue.numRequeues('first')).toBe(0); // not retried: the next term starts afresh
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

  it('on abort waits for reconciles in flight to return before resolving', async () => {
    const queue = fastQueue();
    let started = false;
    let finished = false;
    const controller = new Controller({
      name: 't',
      queue,
      waitForSync: async () => true,
      reconcile: async (_key, signal) => {
        started = true;
        await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
        await new Promise((resolve) => setImmediate(resolve)); // returns a turn of the event loop after the abort
        finished = true;
      },
    });
    const abort = new AbortController();
    const running = controller.run(abort.signal);
    queue.add('slow');
    await until(() => started);
    abort.abort();
    await running;
    expect(finished).toBe(true);
  });
});
