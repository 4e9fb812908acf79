import { linkedSignal } from './abort-scope.js';
import { errorMessage } from './api-error.js';
import type { KubeClient } from './client.js';
import { realClock, type Clock, type Timer } from './clock.js';
import { silentLogger, type RuntimeLogger } from './logger.js';
import { objectKey, type KubeObject } from './object.js';
import { resourceVersionAtLeast } from './resource-version.js';
import { Reflector, type ReflectorObserver, type ReflectorOptions, type ReflectorSink } from './reflector.js';
import type { ResourceRef } from './resource.js';
import { Store, type IndexFunc } from './store.js';

/**
 * What a delete handler receives when the object vanished while the watch was away (seen only by a relist):
 * the last state the cache held. Like client-go's DeletedFinalStateUnknown.
 */
export class DeletedFinalStateUnknown<T> {
  constructor(
    readonly key: string,
    readonly object: T,
  ) {}
}

export interface EventHandlers<T> {
  /** `initialList` is true for objects delivered by a (re)list rather than a watch event. */
  add?(object: T, initialList: boolean): void;
  /** Also called on resync with the same object twice. */
  update?(previous: T, current: T): void;
  delete?(object: T | DeletedFinalStateUnknown<T>): void;
}

export interface InformerOptions<T extends KubeObject> extends Pick<
  ReflectorOptions<T>,
  'pageSize' | 'minWatchTimeoutSeconds' | 'idleTimeoutMs' | 'streamingList' | 'backoff'
> {
  client: KubeClient;
  resource: ResourceRef;
  /**
   * Several namespaces in one cache: one list/watch of `resource` in each of them (its own `namespace` is then
   * ignored), as a controller limited to a few namespaces needs without the right to list the whole cluster.
   */
  namespaces?: readonly string[];
  kind: string;
  labelSelector?: string;
  fieldSelector?: string;
  indexers?: Record<string, IndexFunc<T>>;
  transform?: (object: T) => T;
  /** Replays the whole cache to handlers as updates this often; 0 or unset for never. */
  resyncPeriodMs?: number;
  observer?: ReflectorObserver;
  logger?: RuntimeLogger;
  clock?: Clock;
}

/** Read access to an informer's cache. Objects are frozen: clone before changing. */
export type InformerCache<T extends KubeObject> = Pick<
  Store<T>,
  'get' | 'has' | 'list' | 'keys' | 'byIndex' | 'indexKeys' | 'size'
>;

/** One list/watch feeding the cache: the whole collection, or one namespace's share of it. */
interface Partition<T extends KubeObject> {
  resource: ResourceRef;
  /** Selects the cached objects this partition's lists cover (undefined: all of them). */
  scope: ((object: T) => boolean) | undefined;
  synced: boolean;
  /** The resourceVersion of its last list, event or bookmark. */
  version: string;
  reflector?: Reflector<T>;
}

/**
 * One list/watch of one collection (or one per namespace, with `namespaces`), shared by any number of handlers,
 * with an indexed cache. Handlers run in event order; one that throws is logged and does not affect the others or
 * the informer.
 */
export class SharedInformer<T extends KubeObject> {
  private readonly store: Store<T>;
  private readonly handlers = new Set<EventHandlers<T>>();
  private readonly logger: RuntimeLogger;
  private readonly clock: Clock;
  private readonly partitions: Partition<T>[];
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private running: Promise<void> | undefined;
  private versionWaiters: { version: string; resolve: (reached: boolean) => void }[] = [];

  constructor(private readonly options: InformerOptions<T>) {
    this.store = new Store<T>({ indexers: options.indexers, transform: options.transform });
    this.logger = options.logger ?? silentLogger;
    this.clock = options.clock ?? realClock;
    const namespaces = options.namespaces?.length ? [...new Set(options.namespaces)] : undefined;
    this.partitions = namespaces
      ? namespaces.map((namespace) => ({
          resource: { ...options.resource, namespace },
          scope: (object: T) => object.metadata?.namespace === namespace,
          synced: false,
          version: '',
        }))
      : [{ resource: options.resource, scope: undefined, synced: false, version: '' }];
  }

  get cache(): InformerCache<T> {
    return this.store;
  }

  /**
   * The collection it lists and watches; with `namespaces`, the first namespace's share (any of them answers a
   * consistent read with the cluster's current resourceVersion).
   */
  get resource(): ResourceRef {
    return this.partitions[0]!.resource;
  }

  /**
   * The resourceVersion the cache reflects: of the last list, event or bookmark; with `namespaces`, the oldest of
   * their lists/watches' ('' until each has listed).
   */
  get lastSyncResourceVersion(): string {
    let oldest = this.partitions[0]!.version;
    for (const { version } of this.partitions) {
      if (version === '') return '';
      if (resourceVersionAtLeast(oldest, version) === true) oldest = version;
    }
    return oldest;
  }

  /**
   * Registers handlers and returns a function that removes them. Handlers added after the cache filled first
   * receive an `add` for every object already cached.
   */
  addEventHandler(handlers: EventHandlers<T>): () => void {
    this.handlers.add(handlers);
    if (this.synced)
      for (const object of this.store.list()) this.call('add', () => handlers.add?.(object, true));
    return () => this.handlers.delete(handlers);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /** Resolves true once the first full list is in the cache, or false if the signal aborts first. */
  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    if (this.synced) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.syncWaiters.push(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve(true);
      });
    });
  }

  /**
   * Resolves true once the cache reflects `resourceVersion` or a later one — it then holds every change to the
   * collection up to that version — or false when `signal` aborts first. A version that cannot be compared (not
   * an etcd revision) promises no order: then only the first list is waited for.
   */
  waitForResourceVersion(resourceVersion: string, signal?: AbortSignal): Promise<boolean> {
    if (this.reached(resourceVersion)) return Promise.resolve(true);
    if (signal?.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        version: resourceVersion,
        resolve: (reached: boolean) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(reached);
        },
      };
      const onAbort = () => {
        this.versionWaiters = this.versionWaiters.filter((w) => w !== waiter);
        resolve(false);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.versionWaiters.push(waiter);
    });
  }

  /**
   * Brings the cache to `resourceVersion` or a later one (see waitForResourceVersion): through the watch, if it
   * gets there within `patienceMs`, otherwise by relisting (a consistent read, see Reflector.relist). A watch of
   * a quiet collection passes a version only with its next bookmark, about a minute later; a busy one often gets
   * there first, sparing the list. Resolves with the way it got there, or false when `signal` aborts first.
   */
  async catchUp(
    resourceVersion: string,
    options: { patienceMs: number; signal: AbortSignal },
  ): Promise<'watch' | 'relist' | false> {
    const { patienceMs, signal } = options;
    const patience = linkedSignal(signal);
    const timer = this.clock.setTimer(() => patience.abort(), patienceMs);
    try {
      if (await this.waitForResourceVersion(resourceVersion, patience.signal)) return 'watch';
    } finally {
      timer.cancel();
      patience.dispose();
    }
    if (signal.aborted) return false;
    for (const partition of this.partitions) partition.reflector?.relist();
    return (await this.waitForResourceVersion(resourceVersion, signal)) ? 'relist' : false;
  }

  private reached(resourceVersion: string): boolean {
    return this.partitions.every(
      // Not comparable: nothing to order by, so the first list is all there is to wait for.
      ({ version }) => resourceVersionAtLeast(version, resourceVersion) ?? version !== '',
    );
  }

  /** Starts listing and watching until `signal` aborts; the promise settles once everything has stopped. */
  run(signal: AbortSignal): Promise<void> {
    if (this.running) return this.running;
    const runs = this.partitions.map((partition) => {
      partition.reflector = new Reflector<T>({
        ...this.options,
        resource: partition.resource,
        sink: this.sink(partition),
        logger: this.logger,
        clock: this.clock,
      });
      return partition.reflector.run(signal);
    });
    const resync = this.startResync(signal);
    this.running = Promise.all(runs)
      .then(() => undefined)
      .finally(() => resync?.cancel());
    return this.running;
  }

  private sink(partition: Partition<T>): ReflectorSink<T> {
    return {
      replace: (objects, _resourceVersion) => {
        const accepted = objects.map((object) => this.store.accept(object));
        const changes = this.store.replace(accepted, partition.scope);
        for (const change of changes) {
          if (change.type === 'added') this.dispatch('add', (h) => h.add?.(change.object, true));
          else if (change.type === 'updated')
            this.dispatch('update', (h) => h.update?.(change.previous!, change.object));
          else {
            const tombstone = new DeletedFinalStateUnknown(change.key, change.object);
            this.dispatch('delete', (h) => h.delete?.(tombstone));
          }
        }
        partition.synced = true;
        if (!this.synced && this.partitions.every((each) => each.synced)) {
          this.synced = true;
          const waiters = this.syncWaiters;
          this.syncWaiters = [];
          for (const resolve of waiters) resolve();
        }
      },
      apply: (type, incoming) => {
        const object = this.store.accept(incoming);
        if (type === 'DELETED') {
          this.store.remove(objectKey(object));
          this.dispatch('delete', (h) => h.delete?.(object));
          return;
        }
        const change = this.store.upsert(object);
        if (change.previous) this.dispatch('update', (h) => h.update?.(change.previous!, change.object));
        else this.dispatch('add', (h) => h.add?.(change.object, false));
      },
      progressed: (resourceVersion) => {
        partition.version = resourceVersion;
        if (this.versionWaiters.length === 0) return;
        const waiting = this.versionWaiters;
        this.versionWaiters = [];
        for (const waiter of waiting)
          if (this.reached(waiter.version)) waiter.resolve(true);
          else this.versionWaiters.push(waiter);
      },
    };
  }

  private startResync(signal: AbortSignal): Timer | undefined {
    const period = this.options.resyncPeriodMs ?? 0;
    if (!(period > 0)) return undefined;
    let timer: Timer | undefined;
    const tick = () => {
      if (signal.aborted) return;
      if (this.synced)
        for (const object of this.store.list()) this.dispatch('update', (h) => h.update?.(object, object));
      timer = this.clock.setTimer(tick, period);
    };
    timer = this.clock.setTimer(tick, period);
    return { cancel: () => timer?.cancel() };
  }

  private dispatch(what: string, call: (handlers: EventHandlers<T>) => void): void {
    for (const handlers of this.handlers) this.call(what, () => call(handlers));
  }

  private call(what: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.logger.error('informer event handler threw', {
        handler: what,
        resource: this.options.resource.plural,
        error: errorMessage(error),
      });
    }
  }
}
