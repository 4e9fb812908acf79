/**
 * Holds the changes waiting to go to one client, one per object (the last state wins), and releases each
 * object's change at most once per `intervalMs`. Changes offered in one turn of the event loop (the events of one
 * watch chunk) go out together, in one `send`, once that turn ends: a burst costs the client one message, not
 * one per change. Memory is bounded by the number of distinct objects the client watches, however fast they
 * change or however slowly the client reads.
 */
export class ChangeCoalescer<T> {
  private readonly pending = new Map<string, T>();
  private readonly lastSent = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private timerAt = 0;
  private soon: NodeJS.Immediate | undefined;
  private closed = false;

  constructor(
    /** Sends changes in the order they were first offered; never called with none. */
    private readonly send: (changes: T[]) => void,
    /** Whether the client can take more now (false: keep waiting, coalesced). */
    private readonly ready: () => boolean,
    private readonly intervalMs = 100,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.pending.size;
  }

  offer(key: string, change: T): void {
    if (this.closed) return;
    this.pending.set(key, change);
    this.soon ??= setImmediate(() => {
      this.soon = undefined;
      this.flush();
    });
  }

  /** Forgets what is pending for keys matching `drop` (an unsubscribed subscription's). */
  discard(drop: (key: string) => boolean): void {
    for (const key of this.pending.keys()) if (drop(key)) this.pending.delete(key);
    for (const key of this.lastSent.keys()) if (drop(key)) this.lastSent.delete(key);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
    if (this.soon) clearImmediate(this.soon);
    this.pending.clear();
    this.lastSent.clear();
  }

  private flush(): void {
    if (this.closed) return;
    const now = this.now();
    let wait = Infinity;
    const due: T[] = [];
    if (this.ready()) {
      for (const [key, change] of this.pending) {
        const at = (this.lastSent.get(key) ?? -Infinity) + this.intervalMs;
        if (at <= now) {
          this.pending.delete(key);
          this.lastSent.set(key, now);
          due.push(change);
        } else wait = Math.min(wait, at - now);
      }
    } else if (this.pending.size > 0) wait = this.intervalMs;
    if (due.length > 0) this.send(due);
    if (this.lastSent.size > 10_000) this.pruneLastSent(now);
    this.schedule(wait, now);
  }

  private schedule(wait: number, now: number): void {
    if (wait === Infinity || (this.timer && this.timerAt <= now + wait)) return;
    clearTimeout(this.timer);
    this.timerAt = now + wait;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, wait);
    this.timer.unref();
  }

  /** Keys sent longer ago than the interval need no memory: their next change goes at once anyway. */
  private pruneLastSent(now: number): void {
    for (const [key, at] of this.lastSent) if (at + this.intervalMs <= now) this.lastSent.delete(key);
  }
}
