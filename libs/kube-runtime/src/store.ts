import { deepFreeze, objectKey, type KubeObject } from './object.js';

/** Maps an object to the index values it is filed under (none, one or several). */
export type IndexFunc<T> = (object: T) => readonly string[];

export const NAMESPACE_INDEX = 'namespace';
export const OWNER_UID_INDEX = 'owner-uid';

export const namespaceIndex: IndexFunc<KubeObject> = (object) =>
  object.metadata?.namespace ? [object.metadata.namespace] : [];

export const ownerUidIndex: IndexFunc<KubeObject> = (object) =>
  (object.metadata?.ownerReferences ?? []).map((owner) => owner.uid);

export interface StoreOptions<T extends KubeObject> {
  /** Extra indexes by name; `namespace` and `owner-uid` are always present. */
  indexers?: Record<string, IndexFunc<T>>;
  /**
   * Runs on every object before it enters the store, e.g. `stripManagedFields`. It receives an object the
   * store owns (freshly decoded) and may change it in place.
   */
  transform?: (object: T) => T;
}

export interface Change<T> {
  type: 'added' | 'updated' | 'deleted';
  key: string;
  object: T;
  previous?: T;
}

/**
 * The cache behind an informer: objects by key, with indexes. Objects are deep-frozen when they enter, so the
 * store and every handler share one immutable copy; a handler that wants to change one must clone it first.
 */
export class Store<T extends KubeObject> {
  private readonly items = new Map<string, T>();
  private readonly indexers: Map<string, IndexFunc<T>>;
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private readonly transform: (object: T) => T;

  constructor(options: StoreOptions<T> = {}) {
    this.indexers = new Map<string, IndexFunc<T>>([
      [NAMESPACE_INDEX, namespaceIndex],
      [OWNER_UID_INDEX, ownerUidIndex],
      ...Object.entries(options.indexers ?? {}),
    ]);
    for (const name of this.indexers.keys()) this.indices.set(name, new Map());
    this.transform = options.transform ?? ((object) => object);
  }

  /** Transforms and freezes an object the caller hands over; this is the form the store keeps. */
  accept(object: T): T {
    return deepFreeze(this.transform(object));
  }

  /** Inserts or replaces an accepted object; returns what changed. */
  upsert(object: T): Change<T> {
    const key = objectKey(object);
    const previous = this.items.get(key);
    this.items.set(key, object);
    this.reindex(key, previous, object);
    return previous ? { type: 'updated', key, object, previous } : { type: 'added', key, object };
  }

  /** Removes the object with this key; returns it, or undefined if it was not there. */
  remove(key: string): T | undefined {
    const previous = this.items.get(key);
    if (!previous) return undefined;
    this.items.delete(key);
    this.reindex(key, previous, undefined);
    return previous;
  }

  /**
   * Makes the store hold exactly `objects` (accepted), as after a relist, and returns the differences:
   * additions, updates (resourceVersion changed) and deletions of objects that vanished. With `scope`, the list
   * covers only the objects it selects (one namespace's, when one store caches several): others are kept.
   */
  replace(objects: readonly T[], scope?: (object: T) => boolean): Change<T>[] {
    const changes: Change<T>[] = [];
    const incoming = new Map<string, T>();
    for (const object of objects) incoming.set(objectKey(object), object);
    for (const [key, object] of incoming) {
      const previous = this.items.get(key);
      if (previous && previous.metadata?.resourceVersion === object.metadata?.resourceVersion) continue;
      changes.push(this.upsert(object));
    }
    for (const [key, previous] of [...this.items]) {
      if (incoming.has(key) || (scope && !scope(previous))) continue;
      this.remove(key);
      changes.push({ type: 'deleted', key, object: previous });
    }
    return changes;
  }

  get(key: string): T | undefined {
    return this.items.get(key);
  }

  has(key: string): boolean {
    return this.items.has(key);
  }

  list(): T[] {
    return [...this.items.values()];
  }

  keys(): string[] {
    return [...this.items.keys()];
  }

  get size(): number {
    return this.items.size;
  }

  /** Objects filed under `value` in the named index. */
  byIndex(indexName: string, value: string): T[] {
    return this.indexKeys(indexName, value).map((key) => this.items.get(key) as T);
  }

  /** Keys filed under `value` in the named index. */
  indexKeys(indexName: string, value: string): string[] {
    const index = this.indices.get(indexName);
    if (!index)
      throw new Error(`no index named "${indexName}" (have: ${[...this.indices.keys()].join(', ')})`);
    return [...(index.get(value) ?? [])];
  }

  private reindex(key: string, previous: T | undefined, current: T | undefined): void {
    for (const [name, indexFunc] of this.indexers) {
      const index = this.indices.get(name)!;
      const before = previous ? indexFunc(previous) : [];
      const after = current ? indexFunc(current) : [];
      for (const value of before) {
        if (after.includes(value)) continue;
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
      for (const value of after) {
        let keys = index.get(value);
        if (!keys) index.set(value, (keys = new Set()));
        keys.add(key);
      }
    }
  }
}
