/** Refusals of one key in one window, folded into a count (the RefusalCount model). */
export interface RefusalCount {
  windowStart: Date;
  door: string;
  code: number;
  reason: string;
  /** Empty when unknown. */
  subject: string;
  address: string;
  count: number;
  firstAt: Date;
  lastAt: Date;
  /** The first refusal's message. */
  message: string;
}

/** One refusal as the tally takes it: already storable (no secret, bounded text). */
export interface TalliedRefusal {
  at: Date;
  door: string;
  code: number;
  reason: string;
  subject: string;
  address: string;
  message: string;
}

/** Where refusals past a window's bound on distinct keys are counted: their subject and address are dropped. */
export const OVERFLOW_ADDRESS = '(overflow)';

export interface RefusalTallyOptions {
  /** The length of a window (default one minute). */
  windowMs?: number;
  /**
   * Most distinct (door, code, reason, subject, address) keys of one window with rows of their own; the window's
   * later keys are counted in their (door, code, reason)'s overflow row (default 1,000).
   */
  maxKeysPerWindow?: number;
  /**
   * Most counts held at once, over all windows not yet stored (the database may be away for many windows);
   * beyond it refusals of keys not held are dropped, and counted as dropped (default 10,000).
   */
  maxHeld?: number;
}

/** What `add` did with a refusal. */
export type TallyOutcome = 'counted' | 'overflow' | 'dropped';

/**
 * Refusals folded into counts per (window, door, code, reason, subject, address) until they are stored. Memory is
 * bounded whatever arrives: at most `maxKeysPerWindow` keys of the current window (remembered after a `drain` too,
 * so a window stays bounded in the database as well), plus one overflow row per (window, door, code, reason), and
 * never more than `maxHeld` counts. Door, code and reason come from closed sets, so only subject and address can
 * be many, and those are what overflow drops.
 */
export class RefusalTally {
  private readonly held = new Map<string, RefusalCount>();
  private readonly windowMs: number;
  private readonly maxKeysPerWindow: number;
  private readonly maxHeld: number;
  /** The latest window seen, and the keys it gave rows of their own. */
  private window = -Infinity;
  private readonly admitted = new Set<string>();

  constructor(options: RefusalTallyOptions = {}) {
    this.windowMs = options.windowMs ?? 60_000;
    this.maxKeysPerWindow = options.maxKeysPerWindow ?? 1_000;
    this.maxHeld = options.maxHeld ?? 10_000;
  }

  /** Counts held, not yet stored. */
  get size(): number {
    return this.held.size;
  }

  add(refusal: TalliedRefusal): TallyOutcome {
    const window = Math.floor(refusal.at.getTime() / this.windowMs) * this.windowMs;
    if (window > this.window) {
      this.window = window;
      this.admitted.clear();
    }
    const { at, ...fields } = refusal;
    const base: RefusalCount = {
      ...fields,
      windowStart: new Date(window),
      count: 1,
      firstAt: at,
      lastAt: at,
    };
    const admitted = this.admit(window, keyOf(window, refusal));
    const count = admitted ? base : { ...base, subject: '', address: OVERFLOW_ADDRESS };
    if (!this.merge(count)) return 'dropped';
    return admitted ? 'counted' : 'overflow';
  }

  /** Takes every count held, for storing; they are no longer held. */
  drain(): RefusalCount[] {
    const counts = [...this.held.values()];
    this.held.clear();
    return counts;
  }

  /** Takes back counts that could not be stored; returns how many refusals did not fit (dropped). */
  restore(counts: readonly RefusalCount[]): number {
    let dropped = 0;
    for (const count of counts) if (!this.merge({ ...count })) dropped += count.count;
    return dropped;
  }

  private admit(window: number, key: string): boolean {
    if (this.admitted.has(key)) return true;
    // A late refusal of an earlier window (the clock stepped back) has a row only if one is held for it.
    if (window !== this.window) return this.held.has(key);
    if (this.admitted.size >= this.maxKeysPerWindow) return false;
    this.admitted.add(key);
    return true;
  }

  /** Adds `count` to its key's count; false when it is new and no more counts may be held. */
  private merge(count: RefusalCount): boolean {
    const key = keyOf(count.windowStart.getTime(), count);
    const known = this.held.get(key);
    if (!known) {
      if (this.held.size >= this.maxHeld) return false;
      this.held.set(key, count);
      return true;
    }
    known.count += count.count;
    if (count.firstAt < known.firstAt) known.firstAt = count.firstAt;
    if (count.lastAt > known.lastAt) known.lastAt = count.lastAt;
    return true;
  }
}

function keyOf(
  window: number,
  { door, code, reason, subject, address }: Omit<TalliedRefusal, 'at' | 'message'>,
) {
  return JSON.stringify([window, door, code, reason, subject, address]);
}
