/**
 * Exponential backoff with jitter for retrying failed lists and watches: starts at `initialMs`, doubles per
 * consecutive failure up to `maxMs`, and adds up to `jitter` × the delay at random so many clients that failed
 * together do not retry together.
 */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly initialMs = 800,
    private readonly maxMs = 30_000,
    private readonly jitter = 0.5,
    private readonly random: () => number = Math.random,
  ) {}

  /** The delay before the next attempt; counts one more failure. */
  next(): number {
    const base = Math.min(this.maxMs, this.initialMs * 2 ** Math.min(this.failures, 30));
    this.failures += 1;
    return Math.min(this.maxMs, base * (1 + this.jitter * this.random()));
  }

  reset(): void {
    this.failures = 0;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }
}
