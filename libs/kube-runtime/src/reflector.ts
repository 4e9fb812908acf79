import { KubeApiError, errorMessage, isApiError, isServerError, isTooManyRequests } from './api-error.js';
import { Backoff } from './backoff.js';
import type { KubeClient, KubeResponse } from './client.js';
import { realClock, type Clock, type Timer } from './clock.js';
import { silentLogger, type RuntimeLogger } from './logger.js';
import type { KubeObject } from './object.js';
import { collectionPath, describeResource, type ResourceRef } from './resource.js';
import { sleep } from './token-bucket.js';
import { MalformedWatchEvent, readWatchEvents, type WatchEvent } from './watch-stream.js';

/** Where a reflector delivers what it learns. */
export interface ReflectorSink<T> {
  /** The complete current state, after a (re)list. */
  replace(objects: T[], resourceVersion: string): void;
  /** One change seen by the watch. */
  apply(type: 'ADDED' | 'MODIFIED' | 'DELETED', object: T): void;
  /** The resourceVersion the sink now reflects moved on (after a list, an event or a bookmark). */
  progressed?(resourceVersion: string): void;
}

/** Counters a reflector reports, e.g. to Prometheus. */
export interface ReflectorObserver {
  listed?(how: 'list' | 'streaming', objects: number, seconds: number): void;
  watchRestarted?(reason: 'closed' | 'expired' | 'idle' | 'malformed' | 'error' | 'relist'): void;
}

export interface ReflectorOptions<T> {
  client: KubeClient;
  resource: ResourceRef;
  /** The kind every watched object must have, e.g. 'Pod'; objects of another kind restart the watch. */
  kind: string;
  labelSelector?: string;
  fieldSelector?: string;
  sink: ReflectorSink<T>;
  /** LIST page size. */
  pageSize?: number;
  /** Watches ask the server to end after a random time between this and twice this (spreads reconnects). */
  minWatchTimeoutSeconds?: number;
  /** A watch that delivers nothing, not even a bookmark, for this long is restarted. */
  idleTimeoutMs?: number;
  /** 'auto' tries a streaming list (sendInitialEvents) and falls back to LIST when the server refuses it. */
  streamingList?: boolean | 'auto';
  backoff?: Backoff;
  observer?: ReflectorObserver;
  logger?: RuntimeLogger;
  clock?: Clock;
  random?: () => number;
}

interface ListPage<T> {
  kind?: string;
  apiVersion?: string;
  metadata?: { resourceVersion?: string; continue?: string };
  items?: T[];
}

type WatchEnd = 'closed' | 'expired' | 'idle' | 'malformed' | 'error' | 'relist';

/** An open watch: the response and its event reader (read with next(), so it outlives one loop). */
interface OpenWatch<T> {
  response: KubeResponse;
  events: AsyncGenerator<WatchEvent<T>>;
}

const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** Thrown inside the reflector when the server says our resourceVersion is too old: relist. */
class Expired extends Error {}
/** Thrown inside the reflector when its owner asked for a relist (`relist()`). */
class RelistRequested extends Error {}

/**
 * Keeps a sink in step with one collection of the API server: LIST (paginated, or a streaming list), then WATCH
 * from the list's resourceVersion, re-watching from the latest resourceVersion seen (events and bookmarks) when
 * a watch ends, and relisting when the server answers 410 Gone. Failures back off with jitter; a list that fails
 * part way is retried from the start, never merged partially; a bad event restarts the watch from the last good
 * resourceVersion. `relist()` makes it list again at once. `run` resolves once its signal aborts, with no
 * request or timer left behind.
 */
export class Reflector<T extends KubeObject> {
  private resourceVersion = '';
  private streamingSupported: boolean;
  private readonly path: string;
  private readonly backoff: Backoff;
  private readonly clock: Clock;
  private readonly logger: RuntimeLogger;
  private readonly random: () => number;
  /** Set by `relist()`, cleared when a list starts: a list that starts afterwards answers the request. */
  private relistRequested = false;
  /** Ends the watch being read, if any. */
  private cutWatch: (() => void) | undefined;

  constructor(private readonly options: ReflectorOptions<T>) {
    this.path = collectionPath(options.resource);
    this.streamingSupported = options.streamingList !== false;
    this.backoff = options.backoff ?? new Backoff();
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
    this.random = options.random ?? Math.random;
  }

  /** The resourceVersion of the last list, event or bookmark applied. */
  get lastSyncResourceVersion(): string {
    return this.resourceVersion;
  }

  /**
   * Lists again now, as after a 410: the watch being read ends and the collection is listed afresh, with no
   * resourceVersion (a consistent read: a streaming list, or a LIST, that kube-apiserver answers with the most
   * recent state). The sink's resourceVersion is then at least the cluster's current revision as of this call.
   * A list already under way when this is called is followed by another one.
   */
  relist(): void {
    this.relistRequested = true;
    this.cutWatch?.();
  }

  async run(signal: AbortSignal): Promise<void> {
    const what = describeResource(this.options.resource);
    while (!signal.aborted) {
      try {
        const initial = await this.listState(signal);
        this.backoff.reset();
        await this.watchLoop(signal, initial);
      } catch (error) {
        if (signal.aborted) break;
        if (error instanceof Expired) {
          this.logger.info('resourceVersion expired, relisting', { resource: what });
          this.options.observer?.watchRestarted?.('expired');
          continue;
        }
        if (error instanceof RelistRequested) {
          this.options.observer?.watchRestarted?.('relist');
          continue;
        }
        const delay = this.backoff.next();
        this.logger.warn('list failed, retrying', {
          resource: what,
          error: errorMessage(error),
          retryInMs: Math.round(delay),
        });
        await sleep(delay, this.clock, signal).catch(() => {});
      }
    }
  }

  /**
   * Delivers the collection's full state to the sink. With a streaming list the watch that carried it stays open
   * and is returned, to continue as the regular watch.
   */
  private async listState(signal: AbortSignal): Promise<OpenWatch<T> | undefined> {
    this.relistRequested = false;
    if (this.streamingSupported && this.options.streamingList !== false) {
      try {
        return await this.streamingList(signal);
      } catch (error) {
        if (!isApiError(error) || isServerError(error) || isTooManyRequests(error) || error.isExpired)
          throw error;
        // 400/403/422: this server does not accept sendInitialEvents. LIST from now on.
        this.streamingSupported = false;
        this.logger.info('streaming list not supported, using LIST', { reason: error.message });
      }
    }
    await this.paginatedList(signal);
    return undefined;
  }

  private async paginatedList(signal: AbortSignal): Promise<void> {
    const started = this.clock.now();
    const items: T[] = [];
    let resourceVersion = '';
    let continueToken: string | undefined;
    do {
      const page = await this.options.client.request<ListPage<T>>({
        path: this.path,
        query: { ...this.selectors(), limit: this.options.pageSize ?? 500, continue: continueToken },
        signal,
      });
      const kind = page.kind?.replace(/List$/, '') ?? this.options.kind;
      for (const item of page.items ?? []) items.push({ apiVersion: page.apiVersion, kind, ...item });
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
      continueToken = page.metadata?.continue || undefined;
    } while (continueToken);
    this.options.sink.replace(items, resourceVersion);
    this.advance(resourceVersion);
    this.options.observer?.listed?.('list', items.length, (this.clock.now() - started) / 1000);
  }

  private async streamingList(signal: AbortSignal): Promise<OpenWatch<T>> {
    const started = this.clock.now();
    const watch = await this.openWatch(signal, {
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
    });
    const objects = new Map<string, T>();
    const key = (object: T) => `${object.metadata?.namespace ?? ''}/${object.metadata?.name}`;
    try {
      for (let next = await watch.events.next(); !next.done; next = await watch.events.next()) {
        const event = next.value;
        if (event.type === 'ERROR') throw this.watchError(event.object.code, event.object);
        if (event.type === 'BOOKMARK') {
          if (event.object.metadata?.annotations?.[INITIAL_EVENTS_END] !== 'true') continue;
          const resourceVersion = event.object.metadata!.resourceVersion!;
          this.options.sink.replace([...objects.values()], resourceVersion);
          this.advance(resourceVersion);
          this.options.observer?.listed?.('streaming', objects.size, (this.clock.now() - started) / 1000);
          return watch;
        }
        if (event.type === 'DELETED') objects.delete(key(event.object));
        else objects.set(key(event.object), event.object);
      }
      throw new Error('the streaming list ended before its initial-events-end bookmark');
    } catch (error) {
      watch.response.destroy();
      throw error;
    }
  }

  private async watchLoop(signal: AbortSignal, initial: OpenWatch<T> | undefined): Promise<void> {
    let watch = initial;
    while (!signal.aborted) {
      if (this.relistRequested) {
        watch?.response.destroy();
        throw new RelistRequested();
      }
      try {
        watch ??= await this.openWatch(signal, { resourceVersion: this.resourceVersion });
      } catch (error) {
        if (signal.aborted) return;
        if (isApiError(error) && error.isExpired) throw new Expired();
        if (isApiError(error) && !isServerError(error) && !isTooManyRequests(error)) throw error; // relist after backoff
        const delay = this.backoff.next();
        this.logger.warn('watch failed to open, retrying', {
          error: errorMessage(error),
          retryInMs: Math.round(delay),
        });
        this.options.observer?.watchRestarted?.('error');
        await sleep(delay, this.clock, signal).catch(() => {});
        continue;
      }
      const openedAt = this.clock.now();
      const end = await this.consume(watch, signal);
      watch = undefined;
      if (signal.aborted) return;
      if (end === 'expired') throw new Expired();
      if (end === 'relist') throw new RelistRequested();
      this.options.observer?.watchRestarted?.(end);
      // A watch that ends normally is resumed at once, unless the server keeps closing it straight away.
      if (end !== 'closed' || this.clock.now() - openedAt < 1000) {
        const delay = this.backoff.next();
        this.logger.warn('watch restarted', {
          reason: end,
          resourceVersion: this.resourceVersion,
          retryInMs: Math.round(delay),
        });
        await sleep(delay, this.clock, signal).catch(() => {});
      }
    }
  }

  /** Reads one watch until it ends; returns why it ended. */
  private async consume({ response, events }: OpenWatch<T>, signal: AbortSignal): Promise<WatchEnd> {
    const idleMs = this.options.idleTimeoutMs ?? 5 * 60 * 1000;
    let idle = false;
    let timer: Timer | undefined;
    const arm = () => {
      timer?.cancel();
      timer = this.clock.setTimer(() => {
        idle = true;
        response.destroy();
      }, idleMs);
    };
    const abort = () => response.destroy();
    signal.addEventListener('abort', abort, { once: true });
    this.cutWatch = abort;
    if (this.relistRequested) abort(); // asked for while this watch was opening
    arm();
    try {
      for (let next = await events.next(); !next.done; next = await events.next()) {
        const event = next.value;
        arm();
        if (event.type === 'ERROR') {
          const error = this.watchError(event.object.code, event.object);
          if (error instanceof Expired) return 'expired';
          this.logger.warn('watch sent an error', { error: error.message });
          return 'error';
        }
        if (event.type !== 'BOOKMARK') this.options.sink.apply(event.type, event.object);
        this.advance(event.object.metadata!.resourceVersion!);
        this.backoff.reset();
      }
      return this.relistRequested ? 'relist' : 'closed';
    } catch (error) {
      if (signal.aborted) return 'closed';
      if (this.relistRequested) return 'relist';
      if (idle) return 'idle';
      if (error instanceof MalformedWatchEvent) {
        this.logger.warn('watch sent a malformed event', {
          error: error.message,
          resourceVersion: this.resourceVersion,
        });
        return 'malformed';
      }
      this.logger.warn('watch stream failed', { error: errorMessage(error) });
      return 'error';
    } finally {
      this.cutWatch = undefined;
      timer?.cancel();
      signal.removeEventListener('abort', abort);
      response.destroy();
    }
  }

  private advance(resourceVersion: string): void {
    this.resourceVersion = resourceVersion;
    this.options.sink.progressed?.(resourceVersion);
  }

  private async openWatch(
    signal: AbortSignal,
    query: Record<string, string | boolean>,
  ): Promise<OpenWatch<T>> {
    const min = this.options.minWatchTimeoutSeconds ?? 300;
    const response = await this.options.client.stream({
      path: this.path,
      query: {
        ...this.selectors(),
        watch: true,
        allowWatchBookmarks: true,
        timeoutSeconds: Math.floor(min * (1 + this.random())),
        ...query,
      },
      signal,
    });
    return { response, events: readWatchEvents<T>(response, this.options.kind) };
  }

  private watchError(code: number | undefined, status: { message?: string; reason?: string }): Error {
    const refusal = new KubeApiError(code ?? 500, { kind: 'Status', ...status, code });
    return refusal.isExpired ? new Expired() : refusal;
  }

  private selectors() {
    return {
      labelSelector: this.options.labelSelector || undefined,
      fieldSelector: this.options.fieldSelector || undefined,
    };
  }
}
