import { realClock, type Clock } from '../clock.js';
import { Fifo } from './fifo.js';
import { noWorkQueueMetrics, type WorkQueueMetrics } from './metrics.js';

export type GetResult<T> = { item: T; shutdown: false } | { item?: undefined; shutdown: true };

export interface WorkQueueOptions {
  clock?: Clock;
  /** Without metrics the queue reads no clock at all, and the time-based gauges below report 0. */
  metrics?: WorkQueueMetrics;
}

/** An item the queue knows: waiting (dirty), being processed, or both (changed while processed). */
interface Entry<T> {
  item: T;
  dirty: boolean;
  processing: boolean;
  addedAt: number;
  startedAt: number;
}

/**
 * A work queue with client-go's guarantees:
 * - an item waiting in the queue is held once, however often it is added;
 * - an item being processed is never handed to a second worker;
 * - an item added while it is processed is queued again when its worker calls `done`.
 * After `shutdown`, `add` is ignored and `get` hands out what is left, then reports shutdown; after
 * `shutdownAndDiscard`, what is left is dropped instead and `get` reports shutdown at once.
 */
export class WorkQueue<T> {
  protected readonly clock: Clock;
  protected readonly metrics: WorkQueueMetrics;
  private readonly timed: boolean;
  private readonly queue = new Fifo<Entry<T>>();
  /** Every item waiting or being processed; one map lookup per add and per done, none per get. */
  private readonly entries = new Map<T, Entry<T>>();
  private processingCount = 0;
  private readonly waiters = new Fifo<(result: GetResult<T>) => void>();
  private shuttingDown = false;
  private drainWaiters: (() => void)[] = [];

  constructor(options: WorkQueueOptions = {}) {
    this.clock = options.clock ?? realClock;
    this.metrics = options.metrics ?? noWorkQueueMetrics;
    this.timed = options.metrics !== undefined;
  }

  add(item: T): void {
    if (this.shuttingDown) return;
    const existing = this.entries.get(item);
    if (existing?.dirty) return;
    this.metrics.added();
    const now = this.timed ? this.clock.now() : 0;
    if (existing) {
      // Being processed: it runs again after `done`.
      existing.dirty = true;
      existing.addedAt = now;
      return;
    }
    const entry: Entry<T> = { item, dirty: true, processing: false, addedAt: now, startedAt: 0 };
    this.entries.set(item, entry);
    this.enqueue(entry);
  }

  /** Items waiting to be handed out (not those being processed). */
  len(): number {
    return this.queue.length;
  }

  /** The next item, waiting for one if the queue is empty; `shutdown: true` once shut down and empty. */
  get(): Promise<GetResult<T>> {
    const result = this.tryGet();
    if (result) return Promise.resolve(result);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** The next item if one is ready now, `shutdown` if the queue is finished, otherwise undefined. */
  tryGet(): GetResult<T> | undefined {
    const entry = this.queue.shift();
    if (entry) {
      this.metrics.depth(this.queue.length);
      return { item: this.startProcessing(entry), shutdown: false };
    }
    return this.shuttingDown ? { shutdown: true } : undefined;
  }

  /** Marks the item's processing finished; if it was added meanwhile it goes back in the queue. */
  done(item: T): void {
    const entry = this.entries.get(item);
    if (!entry?.processing) return;
    entry.processing = false;
    this.processingCount -= 1;
    if (this.timed) this.metrics.workDuration((this.clock.now() - entry.startedAt) / 1000);
    if (entry.dirty) {
      this.enqueue(entry);
      return;
    }
    this.entries.delete(item);
    if (this.processingCount === 0) this.notifyDrained();
  }

  shutdown(): void {
    if (this.shuttingDown) return;
    this.shuttingDown = true;
    for (let waiter = this.waiters.shift(); waiter; waiter = this.waiters.shift()) waiter({ shutdown: true });
  }

  /** Shuts down, then resolves once every item handed out has been marked done. */
  shutdownWithDrain(): Promise<void> {
    this.shutdown();
    if (this.processingCount === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  /**
   * Shuts down and drops every item still waiting (those added again while processed too), so no worker gets
   * another one; resolves once every item handed out has been marked done. For a controller whose right to act
   * ended: its backlog belongs to whoever acts next.
   */
  shutdownAndDiscard(): Promise<void> {
    this.shutdown();
    for (let entry = this.queue.shift(); entry; entry = this.queue.shift()) this.entries.delete(entry.item);
    for (const entry of this.entries.values()) entry.dirty = false;
    this.metrics.depth(0);
    return this.shutdownWithDrain();
  }

  isShuttingDown(): boolean {
    return this.shuttingDown;
  }

  /** Seconds of work in progress so far, summed over items being processed (unfinished_work_seconds). */
  unfinishedWorkSeconds(): number {
    const now = this.clock.now();
    let total = 0;
    if (this.timed)
      for (const entry of this.entries.values()) if (entry.processing) total += now - entry.startedAt;
    return total / 1000;
  }

  /** Seconds the longest running worker has held its item (longest_running_processor_seconds). */
  longestRunningProcessorSeconds(): number {
    const now = this.clock.now();
    let oldest = now;
    if (this.timed)
      for (const entry of this.entries.values())
        if (entry.processing) oldest = Math.min(oldest, entry.startedAt);
    return (now - oldest) / 1000;
  }

  private enqueue(entry: Entry<T>): void {
    const waiter = this.waiters.shift();
    if (waiter) {
      this.metrics.depth(this.queue.length);
      waiter({ item: this.startProcessing(entry), shutdown: false });
      return;
    }
    this.queue.push(entry);
    this.metrics.depth(this.queue.length);
  }

  private startProcessing(entry: Entry<T>): T {
    entry.dirty = false;
    entry.processing = true;
    this.processingCount += 1;
    if (this.timed) {
      entry.startedAt = this.clock.now();
      this.metrics.queueLatency((entry.startedAt - entry.addedAt) / 1000);
    }
    return entry.item;
  }

  private notifyDrained(): void {
    if (!this.shuttingDown) return;
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
