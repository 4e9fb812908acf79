/** What a spender's request gets: allowed, or refused with how long until its block ends. */
export type WindowAnswer = { allowed: true } | { allowed: false; retryAfterMs: number };

/** One spender's requests: the times of those allowed in the current window (oldest first), and its block. */
interface SpenderLog {
  /** Times of allowed requests; entries before `head` have left the window and wait to be compacted away. */
  hits: number[];
  head: number;
  /** While `now` is before this, every request is refused and not counted; 0 when not blocked. */
  blockedUntil: number;
}

/**
 * Request budgets over a sliding window, per spender: at most `limit` requests in any `windowMs`, and a spender
 * that asks for one more is refused for a whole `windowMs` from then, after which it starts afresh. Requests
 * refused are not counted.
 *
 * These are the semantics of NestJS's throttler storage with a block duration equal to its window, which this
 * replaces: that storage filters a spender's whole list of hits on every request, which at a few thousand
 * requests per second was a sixth of the CPU of a read served from the cache. Here each request costs O(1)
 * amortised: hits leave the window from the front of the list.
 *
 * Spenders idle for a whole window (and not blocked) are forgotten at the next sweep, at most once a window, so
 * the map does not grow with every address ever seen.
 */
export class SlidingWindowBudget {
  private readonly spenders = new Map<string, SpenderLog>();
  private nextSweepAt = 0;

  constructor(private readonly windowMs: number) {}

  take(spender: string, limit: number, now: number): WindowAnswer {
    this.sweep(now);
    let log = this.spenders.get(spender);
    if (!log) {
      log = { hits: [], head: 0, blockedUntil: 0 };
      this.spenders.set(spender, log);
    }
    if (log.blockedUntil > now) return { allowed: false, retryAfterMs: log.blockedUntil - now };
    if (log.blockedUntil !== 0) {
      log.blockedUntil = 0;
      log.hits = [];
      log.head = 0;
    }
    dropBefore(log, now - this.windowMs);
    if (log.hits.length - log.head >= limit) {
      log.blockedUntil = now + this.windowMs;
      return { allowed: false, retryAfterMs: this.windowMs };
    }
    log.hits.push(now);
    return { allowed: true };
  }

  /** How many spenders are remembered (for tests of the sweep). */
  get size(): number {
    return this.spenders.size;
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + this.windowMs;
    for (const [spender, log] of this.spenders) {
      const last = log.hits[log.hits.length - 1];
      if (log.blockedUntil <= now && (last === undefined || last <= now - this.windowMs))
        this.spenders.delete(spender);
    }
  }
}

/** Moves the window's start past hits at or before `cutoff`; compacts the list once most of it is behind. */
function dropBefore(log: SpenderLog, cutoff: number): void {
  while (log.head < log.hits.length && log.hits[log.head]! <= cutoff) log.head += 1;
  if (log.head > 64 && log.head * 2 > log.hits.length) {
    log.hits = log.hits.slice(log.head);
    log.head = 0;
  }
}
