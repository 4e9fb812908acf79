import { realClock, type Clock } from './clock.js';

/**
 * A token bucket refilled at `qps` tokens per second up to `burst`. Taking a token never fails: when the bucket
 * is empty the token is borrowed from the future and the caller is told how long to wait for it, so concurrent
 * callers are spaced out fairly (the same reservation model as Go's golang.org/x/time/rate).
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    readonly qps: number,
    readonly burst: number,
    private readonly clock: Clock = realClock,
  ) {
    if (!(qps > 0) || !Number.isFinite(qps))
      throw new RangeError(`qps must be a positive number (got ${qps})`);
    if (!Number.isInteger(burst) || burst < 1)
      throw new RangeError(`burst must be an integer ≥ 1 (got ${burst})`);
    this.tokens = burst;
    this.updatedAt = clock.now();
  }

  /** Takes one token and returns how many milliseconds from now it may be used (0 = at once). */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens / this.qps) * 1000;
  }

  /**
   * Takes a token only when one is free now, never borrowing from the future: a caller that can wait (Events)
   * lets every `take`/`reserve` caller go first, and only uses what they leave.
   */
  async takeWhenFree(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      this.refill();
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await sleep(((1 - this.tokens) / this.qps) * 1000, this.clock, signal);
    }
  }

  private refill(): void {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.updatedAt) * this.qps) / 1000);
    this.updatedAt = now;
  }

  /** Waits until a token is available. Rejects with the signal's reason if it aborts first. */
  async take(signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const delay = this.reserve();
    if (delay > 0) await sleep(delay, this.clock, signal);
  }
}

/** Resolves after `ms` on the given clock, or rejects when the signal aborts. */
export function sleep(ms: number, clock: Clock = realClock, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
