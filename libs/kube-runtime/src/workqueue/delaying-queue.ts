import type { Timer } from '../clock.js';
import { MinHeap } from './min-heap.js';
import { WorkQueue, type WorkQueueOptions } from './queue.js';

interface Waiting<T> {
  item: T;
  readyAt: number;
  seq: number;
  heapIndex: number;
}

/**
 * A work queue that can also add an item after a delay. An item already waiting keeps the earlier of its two
 * ready times, so repeated `addAfter` calls never postpone it. One timer serves all waiting items.
 */
export class DelayingQueue<T> extends WorkQueue<T> {
  private readonly waiting = new MinHeap<Waiting<T>>(
    (a, b) => a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq),
  );
  private readonly waitingByItem = new Map<T, Waiting<T>>();
  private seq = 0;
  private timer: Timer | undefined;
  private timerAt = Infinity;

  constructor(options: WorkQueueOptions = {}) {
    super(options);
  }

  /** Adds `item` once `delayMs` has passed (at once when it is not positive); counted as a retry, as client-go counts every AddAfter. */
  addAfter(item: T, delayMs: number): void {
    if (this.isShuttingDown()) return;
    this.metrics.retried();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.waitingByItem.get(item);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.waiting.fix(existing.heapIndex);
      }
    } else {
      const entry: Waiting<T> = { item, readyAt, seq: this.seq++, heapIndex: -1 };
      this.waitingByItem.set(item, entry);
      this.waiting.push(entry);
    }
    this.schedule();
  }

  /** Items waiting for their delay to pass. */
  waitingCount(): number {
    return this.waiting.size;
  }

  override shutdown(): void {
    this.timer?.cancel();
    this.timer = undefined;
    this.timerAt = Infinity;
    super.shutdown();
  }

  override shutdownAndDiscard(): Promise<void> {
    while (this.waiting.pop()) {
      /* dropped */
    }
    this.waitingByItem.clear();
    return super.shutdownAndDiscard();
  }

  private schedule(): void {
    const next = this.waiting.peek();
    if (!next || next.readyAt >= this.timerAt) return;
    this.timer?.cancel();
    this.timerAt = next.readyAt;
    this.timer = this.clock.setTimer(() => this.release(), next.readyAt - this.clock.now());
  }

  private release(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.clock.now();
    for (let next = this.waiting.peek(); next && next.readyAt <= now; next = this.waiting.peek()) {
      this.waiting.pop();
      this.waitingByItem.delete(next.item);
      this.add(next.item);
    }
    this.schedule();
  }
}
