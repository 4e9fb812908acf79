/**
 * Values kept by key, each until its own expiry, for the answers of slow or remote questions (a token's identity,
 * kube-apiserver's access decision). Guarantees:
 * - `get` never returns a value at or past its expiry (it drops it); a value whose expiry is already past when set
 *   is not kept at all.
 * - At most `maxEntries` values are kept: storing one more drops the one stored longest ago (storing a key again
 *   counts as newest).
 * - `load` of a key that is missing calls its `lookup` once for all callers until it settles (single flight); a
 *   lookup that fails is not kept, so the next `load` asks again.
 */
export class ExpiringCache<V> {
  private readonly kept = new Map<string, { value: V; until: number }>();
  private readonly pending = new Map<string, Promise<V>>();

  constructor(private readonly options: { maxEntries: number; now?: () => number }) {}

  /** The value kept for `key`, if it has not expired. */
  get(key: string): V | undefined {
    const entry = this.kept.get(key);
    if (!entry) return undefined;
    if (entry.until > this.now()) return entry.value;
    this.kept.delete(key);
    return undefined;
  }

  /** Keeps `value` for `key` until the time `until` (ms, on the cache's clock). */
  set(key: string, value: V, until: number): void {
    if (until <= this.now()) return;
    this.kept.delete(key);
    this.kept.set(key, { value, until });
    while (this.kept.size > this.options.maxEntries) this.kept.delete(this.kept.keys().next().value!);
  }

  /** The value kept for `key`, or `lookup`'s (kept for `ttlMs`; one lookup at a time per key). */
  load(key: string, lookup: () => Promise<V>, ttlMs: number): Promise<V> {
    const kept = this.get(key);
    if (kept !== undefined) return Promise.resolve(kept);
    const pending = this.pending.get(key);
    if (pending) return pending;
    const asked = lookup()
      .then((value) => {
        this.set(key, value, this.now() + ttlMs);
        return value;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, asked);
    return asked;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
