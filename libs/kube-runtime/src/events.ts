import { ignoreNotFound } from './api-error.js';
import type { KubeRequester } from './client.js';
import { realClock, type Clock } from './clock.js';
import { silentLogger, type RuntimeLogger } from './logger.js';
import type { KubeObject } from './object.js';
import { collectionPath, objectPath } from './resource.js';
import { TokenBucket } from './token-bucket.js';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  /** Every Event write goes through it: pass a leadership term's FencedClient to stop them with the term. */
  client: KubeRequester;
  /** Who reports: the `source.component` and `reportingComponent` of every event. */
  component: string;
  /** This instance, e.g. hostname + pid (`reportingInstance`). */
  instance: string;
  /** Per-object spam filter: events allowed at once, then one per `refillSeconds` (client-go: 25 and 300 s). */
  burst?: number;
  refillSeconds?: number;
  /** How many distinct events are remembered for aggregation. */
  cacheSize?: number;
  /**
   * Event writes in flight at once (client-go writes them from one goroutine): a burst of pod writes is not
   * doubled by as many concurrent Event writes competing for the API server. Default 2.
   */
  maxInFlight?: number;
  /** Events waiting to be written; beyond it new ones are dropped and counted (client-go: 1000). */
  maxQueued?: number;
  logger?: RuntimeLogger;
  clock?: Clock;
  /**
   * Called with the API server's answer to each Event write that succeeded (a new Event, or one whose count was
   * raised), so what the recorder wrote can be kept without reading it back through a watch, and with when it
   * happened: the moment `event()` was called, to the millisecond (the Event's own timestamps are whole seconds,
   * and it may be written a while later). Must not throw.
   */
  onWritten?: (event: KubeObject, happenedAt: Date) => void;
}

interface Recorded {
  name: string;
  namespace: string;
  count: number;
}

const EVENTS = { group: '', version: 'v1', plural: 'events' };

/**
 * Emits core/v1 Events about objects. A repeat of an event already emitted (same object, type, reason and
 * message) increments its `count` instead of creating another object, and a per-object token bucket drops
 * events beyond a burst, so a hot reconcile loop cannot flood the API server. Emitting never throws and never
 * makes the caller wait; failures are logged. Writes for one event are made one after another, at most
 * `maxInFlight` at once, with only the client QPS the controller's own writes leave free (low priority), and at
 * most `maxQueued` wait.
 */
export class EventRecorder {
  private readonly recorded = new Map<string, Recorded>();
  private readonly limiters = new Map<string, TokenBucket>();
  private readonly chains = new Map<string, Promise<void>>();
  private readonly clock: Clock;
  private readonly logger: RuntimeLogger;
  private dropped = 0;
  private sequence = 0;
  private queued = 0;
  private inFlight = 0;
  private readonly waitingForSlot: (() => void)[] = [];

  constructor(private readonly options: EventRecorderOptions) {
    this.clock = options.clock ?? realClock;
    this.logger = options.logger ?? silentLogger;
  }

  /** Events dropped so far, by the spam filter or because too many were waiting. */
  get droppedCount(): number {
    return this.dropped;
  }

  event(object: KubeObject, type: EventType, reason: string, message: string): void {
    const meta = object.metadata;
    if (!meta?.name || !meta.uid) return;
    if (this.limiter(meta.uid).reserve() > 0) {
      this.dropped += 1;
      return;
    }
    if (this.queued >= (this.options.maxQueued ?? 1000)) {
      this.dropped += 1;
      return;
    }
    this.queued += 1;
    const key = [meta.uid, type, reason, message].join('\u0000');
    const previous = this.chains.get(key) ?? Promise.resolve();
    const happenedAt = new Date(); // wall time, not the clock's: it dates a record
    const next = previous.then(() =>
      this.inSlot(() => this.write(key, object, type, reason, message, happenedAt)),
    );
    this.chains.set(key, next);
    void next.finally(() => {
      this.queued -= 1;
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
  }

  /** Runs `write` once fewer than `maxInFlight` writes are running. */
  private async inSlot(write: () => Promise<void>): Promise<void> {
    if (this.inFlight >= (this.options.maxInFlight ?? 2))
      await new Promise<void>((resolve) => this.waitingForSlot.push(resolve));
    else this.inFlight += 1;
    try {
      await write();
    } finally {
      const nextWrite = this.waitingForSlot.shift();
      if (nextWrite)
        nextWrite(); // the slot passes straight on
      else this.inFlight -= 1;
    }
  }

  /** Resolves once every event emitted so far has been written (or failed). */
  async flush(): Promise<void> {
    await Promise.allSettled([...this.chains.values()]);
  }

  private limiter(uid: string): TokenBucket {
    let bucket = this.limiters.get(uid);
    if (!bucket) {
      const refill = this.options.refillSeconds ?? 300;
      bucket = new TokenBucket(1 / refill, this.options.burst ?? 25, this.clock);
      this.limiters.set(uid, bucket);
      if (this.limiters.size > (this.options.cacheSize ?? 4096))
        this.limiters.delete(this.limiters.keys().next().value!);
    }
    return bucket;
  }

  private async write(
    key: string,
    object: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    happenedAt: Date,
  ): Promise<void> {
    const meta = object.metadata!;
    const namespace = meta.namespace || 'default';
    const now = new Date().toISOString();
    const seen = this.recorded.get(key);
    try {
      if (seen) {
        try {
          const patched = await this.options.client.request<KubeObject>({
            method: 'PATCH',
            path: objectPath({ ...EVENTS, namespace: seen.namespace }, seen.name),
            contentType: 'application/merge-patch+json',
            body: { count: seen.count + 1, lastTimestamp: now },
            priority: 'low',
          });
          seen.count += 1;
          this.options.onWritten?.(patched, happenedAt);
          return;
        } catch (error) {
          ignoreNotFound(error);
          this.recorded.delete(key); // the event expired on the server: start a new one
        }
      }
      // Unique per process: milliseconds plus a sequence (client-go uses nanoseconds, which JavaScript lacks).
      const name = `${meta.name}.${Date.now().toString(16)}${(this.sequence++ % 0x10000).toString(16).padStart(4, '0')}`;
      const created = await this.options.client.request<KubeObject>({
        method: 'POST',
        path: collectionPath({ ...EVENTS, namespace }),
        priority: 'low',
        body: {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name, namespace },
          involvedObject: {
            apiVersion: object.apiVersion,
            kind: object.kind,
            name: meta.name,
            namespace: meta.namespace,
            uid: meta.uid,
            resourceVersion: meta.resourceVersion,
          },
          type,
          reason,
          message,
          count: 1,
          firstTimestamp: now,
          lastTimestamp: now,
          source: { component: this.options.component },
          reportingComponent: this.options.component,
          reportingInstance: this.options.instance,
        },
      });
      this.recorded.set(key, { name, namespace, count: 1 });
      this.options.onWritten?.(created, happenedAt);
      if (this.recorded.size > (this.options.cacheSize ?? 4096))
        this.recorded.delete(this.recorded.keys().next().value!);
    } catch (error) {
      this.logger.warn('could not record event', {
        reason,
        object: `${namespace}/${meta.name}`,
        error: (error as Error).message,
      });
    }
  }
}
