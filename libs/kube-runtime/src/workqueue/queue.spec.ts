import { describe, expect, it } from 'vitest';
import { FakeClock } from '../testing/fake-clock.js';
import { DelayingQueue } from './delaying-queue.js';
import type { WorkQueueMetrics } from './metrics.js';
import { WorkQueue } from './queue.js';
import { RateLimitingQueue } from './rate-limiting-queue.js';
import { ItemExponentialFailureRateLimiter } from '../rate-limiter.js';

const flush = () => new Promise((resolve) => setImmediate(resolve));

async function drainNow<T>(queue: WorkQueue<T>): Promise<T[]> {
  const items: T[] = [];
  for (let result = queue.tryGet(); result && !result.shutdown; result = queue.tryGet())
    items.push(result.item);
  return items;
}

describe('WorkQueue', () => {
  it('hands items out in the order they were first added', async () => {
    const queue = new WorkQueue<string>();
    for (const key of ['a', 'b', 'c']) queue.add(key);
    expect(await drainNow(queue)).toEqual(['a', 'b', 'c']);
  });

  it('holds a waiting item once however often it is added', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.add('b');
    queue.add('a');
    queue.add('a');
    expect(queue.len()).toBe(2);
    expect(await drainNow(queue)).toEqual(['a', 'b']);
  });

  it('never hands an item being processed to a second worker, and reprocesses it after done', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    const first = await queue.get();
    expect(first).toEqual({ item: 'a', shutdown: false });

    queue.add('a'); // changed while being processed
    expect(queue.len()).toBe(0);
    expect(queue.tryGet()).toBeUndefined();

    queue.add('a'); // still once
    queue.done('a');
    expect(queue.len()).toBe(1);
    expect(await queue.get()).toEqual({ item: 'a', shutdown: false });
    queue.done('a');
    expect(queue.len()).toBe(0);
  });

  it('wakes a waiting worker when an item arrives', async () => {
    const queue = new WorkQueue<string>();
    const pending = queue.get();
    queue.add('x');
    expect(await pending).toEqual({ item: 'x', shutdown: false });
  });

  it('serves many waiting workers one item each', async () => {
    const queue = new WorkQueue<number>();
    const workers = [queue.get(), queue.get(), queue.get()];
    queue.add(1);
    queue.add(2);
    queue.add(3);
    expect((await Promise.all(workers)).map((result) => result.item).sort()).toEqual([1, 2, 3]);
  });

  it('ignores adds after shutdown, hands out what is left, then reports shutdown', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    queue.shutdown();
    queue.add('b');
    expect(await queue.get()).toEqual({ item: 'a', shutdown: false });
    expect(await queue.get()).toEqual({ shutdown: true });
  });

  it('releases blocked workers on shutdown', async () => {
    const queue = new WorkQueue<string>();
    const waiting = [queue.get(), queue.get()];
    queue.shutdown();
    expect(await Promise.all(waiting)).toEqual([{ shutdown: true }, { shutdown: true }]);
  });

  it('shutdownWithDrain waits for items in flight to be done', async () => {
    const queue = new WorkQueue<string>();
    queue.add('a');
    await queue.get();
    let drained = false;
    const drain = queue.shutdownWithDrain().then(() => (drained = true));
    await flush();
    expect(drained).toBe(false);
    queue.done('a');
    await drain;
    expect(drained).toBe(true);
  });

  it('shutdownAndDiscard drops the backlog, also an item added again while processed, and waits for work in flight', async () => {
    const queue = new WorkQueue<string>();
    for (const item of ['busy', 'b', 'c']) queue.add(item);
    const busy = queue.tryGet();
    expect(busy).toEqual({ item: 'busy', shutdown: false });
    queue.add('busy'); // changed while processed: would run again after done
    let drained = false;
    const draining = queue.shutdownAndDiscard().then(() => (drained = true));
    expect(queue.len()).toBe(0);
    expect(queue.tryGet()).toEqual({ shutdown: true });
    await flush();
    expect(drained).toBe(false);
    queue.done('busy');
    await draining;
    expect(queue.tryGet()).toEqual({ shutdown: true });
  });

  it('shutdownWithDrain resolves at once with nothing in flight', async () => {
    await new WorkQueue<string>().shutdownWithDrain();
  });

  it('done for an item never handed out is harmless', () => {
    const queue = new WorkQueue<string>();
    queue.done('ghost');
    queue.add('ghost');
    expect(queue.len()).toBe(1);
  });

  it('reports metrics: adds, depth, queue latency, work duration, unfinished work and longest processor', async () => {
    const clock = new FakeClock();
    const seen = {
      added: 0,
      depth: [] as number[],
      latency: [] as number[],
      work: [] as number[],
      retried: 0,
    };
    const metrics: WorkQueueMetrics = {
      added: () => void seen.added++,
      depth: (n) => void seen.depth.push(n),
      queueLatency: (s) => void seen.latency.push(s),
      workDuration: (s) => void seen.work.push(s),
      retried: () => void seen.retried++,
    };
    const queue = new WorkQueue<string>({ clock, metrics });
    queue.add('a');
    queue.add('a');
    queue.add('b');
    clock.advance(250);
    await queue.get();
    clock.advance(1000);
    await queue.get();
    clock.advance(500);
    expect(queue.unfinishedWorkSeconds()).toBeCloseTo(1.5 + 0.5);
    expect(queue.longestRunningProcessorSeconds()).toBeCloseTo(1.5);
    queue.done('a');
    expect(seen.added).toBe(2);
    expect(seen.depth).toEqual([1, 2, 1, 0]);
    expect(seen.latency).toEqual([0.25, 1.25]);
    expect(seen.work).toEqual([1.5]);
    expect(queue.longestRunningProcessorSeconds()).toBeCloseTo(0.5);
  });
});

describe('DelayingQueue', () => {
  it('adds an item once its delay has passed', () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter('a', 100);
    expect(queue.len()).toBe(0);
    clock.advance(99);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
  });

  it('adds at once for a zero or negative delay', () => {
    const queue = new DelayingQueue<string>({ clock: new FakeClock() });
    queue.addAfter('a', 0);
    queue.addAfter('b', -5);
    expect(queue.len()).toBe(2);
  });

  it('keeps the earlier ready time when an item is added again with a delay', () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter('a', 1000);
    queue.addAfter('a', 50);
    queue.addAfter('a', 5000);
    expect(queue.waitingCount()).toBe(1);
    clock.advance(50);
    expect(queue.len()).toBe(1);
    clock.advance(10_000);
    expect(queue.len()).toBe(1);
  });

  it('releases items in ready order with a single timer', async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter('late', 300);
    queue.addAfter('early', 100);
    queue.addAfter('middle', 200);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(300);
    expect(await drainNow(queue)).toEqual(['early', 'middle', 'late']);
  });

  it('shutdownAndDiscard also drops items waiting for their delay', async () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter('later', 100);
    queue.add('now');
    await queue.shutdownAndDiscard();
    expect(queue.waitingCount()).toBe(0);
    clock.advance(1000);
    expect(queue.tryGet()).toEqual({ shutdown: true });
  });

  it('drops waiting items and its timer on shutdown', () => {
    const clock = new FakeClock();
    const queue = new DelayingQueue<string>({ clock });
    queue.addAfter('a', 100);
    queue.shutdown();
    expect(clock.pendingTimers()).toBe(0);
    queue.addAfter('b', 100);
    clock.advance(1000);
    expect(queue.len()).toBe(0);
  });
});

describe('RateLimitingQueue', () => {
  it('backs off exponentially per item, counts requeues, and forget resets', () => {
    const clock = new FakeClock();
    let retries = 0;
    const queue = new RateLimitingQueue<string>({
      clock,
      rateLimiter: new ItemExponentialFailureRateLimiter(5, 1000),
      metrics: {
        added() {},
        depth() {},
        queueLatency() {},
        workDuration() {},
        retried: () => void retries++,
      },
    });
    queue.addRateLimited('a');
    clock.advance(4);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    queue.tryGet();
    queue.done('a');

    queue.addRateLimited('a');
    clock.advance(9);
    expect(queue.len()).toBe(0);
    clock.advance(1);
    expect(queue.len()).toBe(1);
    expect(queue.numRequeues('a')).toBe(2);
    expect(retries).toBe(2);

    queue.forget('a');
    expect(queue.numRequeues('a')).toBe(0);
  });

  it('uses the default controller limiter when none is given', () => {
    const clock = new FakeClock();
    const queue = new RateLimitingQueue<string>({ clock });
    queue.addRateLimited('a');
    clock.advance(5);
    expect(queue.len()).toBe(1);
  });
});
