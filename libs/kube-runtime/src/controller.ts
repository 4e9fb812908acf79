import { silentLogger, type RuntimeLogger } from './logger.js';
import { RateLimitingQueue } from './workqueue/rate-limiting-queue.js';

/** What a reconcile asks for: nothing more (done), or another look after a delay. */
export type ReconcileResult = void | { requeueAfterMs: number };

export interface ControllerMetrics {
  reconciled?(result: 'success' | 'error' | 'requeue', seconds: number): void;
  /** A key failed `maxRetries` times in a row and was dropped. */
  dropped?(key: string): void;
}

export interface ControllerOptions {
  name: string;
  queue: RateLimitingQueue<string>;
  reconcile: (key: string) => Promise<ReconcileResult>;
  /** Concurrent workers; the queue guarantees one key is never reconciled by two at once. */
  workers?: number;
  /** Failures in a row after which a key is dropped until it changes again. */
  maxRetries?: number;
  /** Resolves true once the caches the reconcile reads are synced; workers wait for it. */
  waitForSync: (signal: AbortSignal) => Promise<boolean>;
  metrics?: ControllerMetrics;
  logger?: RuntimeLogger;
  now?: () => number;
}

/**
 * Runs N workers that take keys from the queue and reconcile them, after the caches have synced. A thrown error
 * retries the key with backoff (`addRateLimited`) up to `maxRetries`, then drops it with a log line; success
 * forgets its failure history. Nothing thrown by a reconcile stops a worker. `run` resolves after the signal
 * aborts and every reconcile in flight has finished (the queue is drained).
 */
export class Controller {
  constructor(private readonly options: ControllerOptions) {}

  async run(signal: AbortSignal): Promise<void> {
    const { queue } = this.options;
    const logger = this.options.logger ?? silentLogger;
    const stop = () => void queue.shutdownWithDrain();
    signal.addEventListener('abort', stop, { once: true });
    try {
      if (!(await this.options.waitForSync(signal))) return;
      logger.info('caches synced, starting workers', {
        controller: this.options.name,
        workers: this.options.workers ?? 1,
      });
      const workers = Array.from({ length: this.options.workers ?? 1 }, () => this.worker());
      await Promise.all(workers);
    } finally {
      signal.removeEventListener('abort', stop);
      await queue.shutdownWithDrain();
    }
  }

  private async worker(): Promise<void> {
    const { queue } = this.options;
    for (;;) {
      const next = await queue.get();
      if (next.shutdown) return;
      try {
        await this.process(next.item);
      } finally {
        queue.done(next.item);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const { queue, metrics } = this.options;
    const logger = this.options.logger ?? silentLogger;
    const now = this.options.now ?? (() => performance.now());
    const started = now();
    try {
      const result = await this.options.reconcile(key);
      queue.forget(key);
      if (result && result.requeueAfterMs >= 0) {
        queue.addAfter(key, result.requeueAfterMs);
        metrics?.reconciled?.('requeue', (now() - started) / 1000);
      } else {
        metrics?.reconciled?.('success', (now() - started) / 1000);
      }
    } catch (error) {
      metrics?.reconciled?.('error', (now() - started) / 1000);
      const message = error instanceof Error ? error.message : String(error);
      const maxRetries = this.options.maxRetries ?? 15;
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
