/** How long an Nginx counts as making progress after its last progress report was due. */
const PROGRESSING_WINDOW_MS = 10_000;
/** While its counts keep moving, an Nginx's progress write waits for them to hold still, up to this many intervals. */
const MOVING_CAP_INTERVALS = 5;

export interface ProgressPacingOptions {
  /** Shortest time between an Nginx's progress write and its last status write or pod action; ≤ 0: no pacing. */
  intervalMs: number;
  /** Progress writes a second the whole controller may spend while many Nginxes make progress at once. */
  perSecond: number;
  now: () => number;
}

/**
 * When a progress status of one Nginx (not yet settled: pods still to create, start or become ready) may be
 * written. Never sooner than `intervalMs` after its last status write or pod action, so a scale-up whose pods are
 * ready within it costs one status write, a longer one a write per interval, not one per pod. And while more
 * Nginxes make progress at once than `perSecond × intervalMs` allows, each one's interval is its share of
 * `perSecond`: 100 Nginxes scaled up together report progress every 10 s each (at 10 a second), not 100 writes a
 * second on top of their pod creations, when the API server is busiest. A settled status (all ready, or failed)
 * is not paced: the reconciler writes it at once. What users watch live (pods, rollouts) comes from the caches,
 * not from these writes.
 *
 * And while its counts keep moving (pods turning ready one after another), a progress write waits until they have
 * held still for `intervalMs`, up to MOVING_CAP_INTERVALS intervals after the last write or pod action: pods that
 * all turn ready within a few seconds of their burst end in one settled write, not a write per interval, while
 * an Nginx that stops short (9 of 10 ready) reports it one interval later, and a long climb still every 5 s.
 *
 * An Nginx counts as making progress from the moment a progress write of it is asked for until it settles, is
 * forgotten, or PROGRESSING_WINDOW_MS pass without another.
 */
export class ProgressPacing {
  private readonly lastActAt = new Map<string, number>();
  private readonly progressing = new Map<string, number>();
  /** The counts each Nginx would report, and since when it would report them. */
  private readonly pending = new Map<string, { counts: string; since: number }>();
  private prunedAt = 0;

  constructor(private readonly options: ProgressPacingOptions) {}

  /** Its status was written, or pods of it created or deleted. */
  acted(key: string): void {
    this.lastActAt.set(key, this.options.now());
  }

  /**
   * How long a progress write of `key` that would report `counts` (any text that changes when the reported pod
   * counts do) should wait (0: write now).
   */
  wait(key: string, counts = ''): number {
    const { intervalMs, perSecond, now } = this.options;
    const at = now();
    this.progressing.set(key, at);
    let pending = this.pending.get(key);
    if (pending?.counts !== counts) this.pending.set(key, (pending = { counts, since: at }));
    const last = this.lastActAt.get(key);
    if (last === undefined || intervalMs <= 0) return 0;
    const interval = Math.max(intervalMs, (this.progressingCount(at) * 1000) / perSecond);
    const stillAt = Math.min(
      pending.since + intervalMs,
      last + Math.max(interval, MOVING_CAP_INTERVALS * intervalMs),
    );
    return Math.max(0, last + interval - at, stillAt - at);
  }

  /** Its status settled: it no longer takes a share of the progress writes. */
  settled(key: string): void {
    this.progressing.delete(key);
    this.pending.delete(key);
  }

  /** It is gone. */
  forget(key: string): void {
    this.progressing.delete(key);
    this.lastActAt.delete(key);
    this.pending.delete(key);
  }

  private progressingCount(now: number): number {
    if (now - this.prunedAt >= 1000) {
      this.prunedAt = now;
      for (const [key, at] of this.progressing)
        if (now - at > PROGRESSING_WINDOW_MS) this.progressing.delete(key);
    }
    return this.progressing.size;
  }
}
