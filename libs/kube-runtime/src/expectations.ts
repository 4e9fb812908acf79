import { realClock, type Clock } from './clock.js';

interface Expectation {
  creations: number;
  deletions: Set<string>;
  setAt: number;
}

/**
 * What a controller is waiting to see in its cache after it created or deleted objects for a key (the
 * ReplicaSet controller's expectations). Until the informer reports those creations and deletions — or the
 * record expires, in case an event was lost — the key is not acted on again, so a cache that lags behind the
 * API server never causes a second round of creates or deletes.
 */
export class Expectations {
  private readonly records = new Map<string, Expectation>();

  constructor(
    private readonly clock: Clock = realClock,
    /** After this long an unmet expectation is given up on (the ReplicaSet controller uses 5 minutes). */
    private readonly ttlMs = 5 * 60 * 1000,
  ) {}

  /** Records that `count` creations are about to be made for `key` (replacing any earlier record). */
  expectCreations(key: string, count: number): void {
    this.records.set(key, { creations: count, deletions: new Set(), setAt: this.clock.now() });
  }

  /** Records the keys of the objects about to be deleted for `key` (replacing any earlier record). */
  expectDeletions(key: string, objectKeys: readonly string[]): void {
    this.records.set(key, { creations: 0, deletions: new Set(objectKeys), setAt: this.clock.now() });
  }

  /** The informer saw one of the expected creations (or a creation failed and will not be seen). */
  creationObserved(key: string): void {
    const record = this.records.get(key);
    if (record && record.creations > 0) record.creations -= 1;
  }

  /** The informer saw `objectKey` deleted (or its deletion failed). Repeats for the same object count once. */
  deletionObserved(key: string, objectKey: string): void {
    this.records.get(key)?.deletions.delete(objectKey);
  }

  /** True when `key` may be acted on: nothing expected, everything expected seen, or the record expired. */
  satisfied(key: string): boolean {
    const record = this.records.get(key);
    if (!record) return true;
    if (record.creations <= 0 && record.deletions.size === 0) return true;
    return this.clock.now() - record.setAt > this.ttlMs;
  }

  /** What is still outstanding for `key`, for logs and status. */
  pending(key: string): { creations: number; deletions: string[] } | undefined {
    const record = this.records.get(key);
    return record && { creations: record.creations, deletions: [...record.deletions] };
  }

  /** Forgets `key` entirely (its owner was deleted). */
  delete(key: string): void {
    this.records.delete(key);
  }
}
