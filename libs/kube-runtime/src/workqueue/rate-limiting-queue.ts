import { defaultControllerRateLimiter, type RateLimiter } from '../rate-limiter.js';
import { DelayingQueue } from './delaying-queue.js';
import type { WorkQueueOptions } from './queue.js';

export interface RateLimitingQueueOptions<T> extends WorkQueueOptions {
  rateLimiter?: RateLimiter<T>;
}

/** A delaying queue whose retries are spaced by a rate limiter (client-go's default controller limiter). */
export class RateLimitingQueue<T> extends DelayingQueue<T> {
  private readonly rateLimiter: RateLimiter<T>;

  constructor(options: RateLimitingQueueOptions<T> = {}) {
    super(options);
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter<T>(this.clock);
  }

  /** Adds the item once the rate limiter allows, counting one more failure for it. */
  addRateLimited(item: T): void {
    if (this.isShuttingDown()) return;
    this.addAfter(item, this.rateLimiter.when(item));
  }

  /** Clears the item's failure history (call after it was processed successfully). */
  forget(item: T): void {
    this.rateLimiter.forget(item);
  }

  numRequeues(item: T): number {
    return this.rateLimiter.numRequeues(item);
  }
}
