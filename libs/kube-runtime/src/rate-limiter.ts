import { realClock, type Clock } from './clock.js';
import { TokenBucket } from './token-bucket.js';

/** Decides how long an item waits before it is retried. */
export interface RateLimiter<T> {
  /** Delay in milliseconds before `item` may be processed again; counts as one more failure. */
  when(item: T): number;
  /** Stops tracking `item`: its next failure starts from the smallest delay again. */
  forget(item: T): void;
  /** How many times `item` has been rate limited since it was last forgotten. */
  numRequeues(item: T): number;
}

/** Per-item exponential backoff: `base * 2^failures`, capped at `max` (client-go's default: 5 ms to 1000 s). */
export class ItemExponentialFailureRateLimiter<T> implements RateLimiter<T> {
  private readonly failures = new Map<T, number>();

  constructor(
    private readonly baseDelayMs = 5,
    private readonly maxDelayMs = 1_000_000,
  ) {}

  when(item: T): number {
    const exponent = this.failures.get(item) ?? 0;
    this.failures.set(item, exponent + 1);
    const delay = this.baseDelayMs * 2 ** exponent;
    return Number.isFinite(delay) && delay < this.maxDelayMs ? delay : this.maxDelayMs;
  }

  forget(item: T): void {
    this.failures.delete(item);
  }

  numRequeues(item: T): number {
    return this.failures.get(item) ?? 0;
  }
}

/** An overall token bucket shared by all items (client-go's default: 10 per second, burst 100). */
export class BucketRateLimiter<T> implements RateLimiter<T> {
  private readonly bucket: TokenBucket;

  constructor(qps = 10, burst = 100, clock: Clock = realClock) {
    this.bucket = new TokenBucket(qps, burst, clock);
  }

  when(_item: T): number {
    return this.bucket.reserve();
  }

  forget(_item: T): void {}

  numRequeues(_item: T): number {
    return 0;
  }
}

/** Asks every limiter and waits for the longest answer. */
export class MaxOfRateLimiter<T> implements RateLimiter<T> {
  private readonly limiters: RateLimiter<T>[];

  constructor(...limiters: RateLimiter<T>[]) {
    this.limiters = limiters;
  }

  when(item: T): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.when(item)));
  }

  forget(item: T): void {
    for (const limiter of this.limiters) limiter.forget(item);
  }

  numRequeues(item: T): number {
    return Math.max(0, ...this.limiters.map((limiter) => limiter.numRequeues(item)));
  }
}

/** client-go's DefaultControllerRateLimiter: per-item 5 ms → 1000 s backoff, overall 10 qps with burst 100. */
export function defaultControllerRateLimiter<T>(clock: Clock = realClock): RateLimiter<T> {
  return new MaxOfRateLimiter<T>(
    new ItemExponentialFailureRateLimiter<T>(5, 1_000_000),
    new BucketRateLimiter<T>(10, 100, clock),
  );
}
