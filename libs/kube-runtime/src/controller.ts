import { errorMessage } from './api-error.js';
import { silentLogger, type RuntimeLogger } from './logger.js';
import { RateLimitingQueue } from './workqueue/rate-limiting-queue.js';

/**
 * What a reconcile asks for: nothing more (done); another look after a delay (`requeueAfterMs`, its failure
 * history forgotten); or another look spaced by the key's backoff (`requeue: true`, e.g. after a conflict,
 * without counting as an error).
 */
export type ReconcileResult = void | { requeueAfterMs: number } | { requeue: true };

/**
 * How a reconcile ended, in controller-runtime's words (controller_runtime_reconcile_total's `result`), plus
 * `aborted`: cut short because the controller stopped (controller-runtime sees that as an error).
 */
export type ReconcileOutcome = 'success' | 'error' | 'requeue' | 'requeue_after' | 'aborted';

export interface ControllerMetrics {
  /** `requeue`: `{ requeue: true }`, through the rate limiter; `requeue_after`: `{ requeueAfterMs }`. */
  reconciled?(result: ReconcileOutcome, seconds: number): void;
  /** Workers reconciling a key now (controller-runtime's active_workers), after each change. */
  busyWorkers?(count: number): void;
  /** A key failed `maxRetries` times in a row and was dropped (only with a finite `maxRetries`). */
  dropped?(key: string): void;
}

export interface ControllerOptions {
  name: string;
  queue: RateLimitingQueue<string>;
  /** Reconciles one key; `signal` aborts when the controller stops (e.g. its leadership term ended). */
  reconcile: (key: string, signal: AbortSignal) => Promise<ReconcileResult>;
  /** Concurrent workers; the queue guarantees one key is never reconciled by two at once. */
  workers?: number;
  /**
   * Failures in a row after which a key is dropped until it changes again. Unset: never — a failing key is
   * retried with its backoff (capped by the queue's rate limiter, client-go's 1000 s) for as long as it fails,
   * as the ReplicaSet controller does.
   */
  maxRetries?: number;
  /** Resolves true once the caches the reconcile reads are synced; workers wait for it. */
  waitForSync: (signal: AbortSignal) => Promise<boolean>;
  metrics?: ControllerMetrics;
  logger?: RuntimeLogger;
  now?: () => number;
}

/**
 * Runs N workers that take keys from the queue and reconcile them, after the caches have synced. A thrown error
 * retries the key with backoff (`addRateLimited`); success forgets its failure history. Nothing thrown by a
 * reconcile stops a worker. When the signal aborts, no further key is taken, the queue's backlog is dropped
 * (not processed), reconciles in flight see the abort through their signal, and `run` resolves once they have
 * all returned.
 */
export class Controller {
  constructor(private readonly options: ControllerOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const { queue } = this.options;
    const logger = this.options.logger ?? silentLogger;
    const stop = () => void queue.shutdownAndDiscard();
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    try {
      if (!(await this.options.waitForSync(signal)) || signal.aborted) return;
      logger.info('caches synced, starting workers', {
        controller: this.options.name,
        workers: this.options.workers ?? 1,
      });
      const workers = Array.from({ length: this.options.workers ?? 1 }, () => this.worker(signal));
      await Promise.all(workers);
    } finally {
      signal.removeEventListener('abort', stop);
      await queue.shutdownAndDiscard();
    }
  }

  private busy = 0;

  private async worker(signal: AbortSignal): Promise<void> {
    const { queue, metrics } = this.options;
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      metrics?.busyWorkers?.(++this.busy);
      try {
        if (!signal.aborted) await this.process(next.item, signal);
      } finally {
        queue.done(next.item);
        metrics?.busyWorkers?.(--this.busy);
      }
    }
  }

  private async process(key: string, signal: AbortSignal): Promise<void> {
    const { queue, metrics } = this.options;
    const logger = this.options.logger ?? silentLogger;
    const now = this.options.now ?? (() => performance.now());
    const started = now();
    const seconds = () => (now() - started) / 1000;
    try {
      const result = await this.options.reconcile(key, signal);
      if (result && 'requeue' in result) {
        queue.addRateLimited(key);
        metrics?.reconciled?.('requeue', seconds());
        return;
      }
      queue.forget(key);
      if (result && result.requeueAfterMs >= 0) {
        queue.addAfter(key, result.requeueAfterMs);
        metrics?.reconciled?.('requeue_after', seconds());
      } else {
        metrics?.reconciled?.('success', seconds());
      }
    } catch (error) {
      const message = errorMessage(error);
      if (signal.aborted) {
        metrics?.reconciled?.('aborted', seconds());
        logger.info('reconcile cut short: the controller is stopping', {
          controller: this.options.name,
          key,
          error: message,
        });
        return;
      }
      metrics?.reconciled?.('error', seconds());
      const maxRetries = this.options.maxRetries ?? Infinity;
      if (queue.numRequeues(key) < maxRetries) {
        logger.warn('reconcile failed, retrying', {
          controller: this.options.name,
          key,
          error: message,
          attempt: queue.numRequeues(key) + 1,
        });
        queue.addRateLimited(key);
      } else {
        logger.error('reconcile failed too often, dropping key', {
          controller: this.options.name,
          key,
          error: message,
          maxRetries,
        });
        queue.forget(key);
        metrics?.dropped?.(key);
      }
    }
  }
}
