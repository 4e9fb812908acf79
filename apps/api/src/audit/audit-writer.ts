import { silentLogger, type RuntimeLogger } from '@ngx/kube-runtime';
import type { ChangeRecordRow } from './change-record.js';
import type { NoopCount, ReconcileRecordRow } from './reconcile-record.js';

/** What one transaction stores: reconcile records, change records and no-op counts. */
export interface AuditBatch {
  rows: ReconcileRecordRow[];
  changes: ChangeRecordRow[];
  noops: NoopCount[];
}

/** Where batches go: one call is one transaction (all rows and counts of the batch, or none). */
export interface AuditSink {
  write(batch: AuditBatch): Promise<void>;
}

/** A queued row of either kind; one queue keeps them in the order they happened and under one bound. */
type QueuedRow = { kind: 'reconcile'; row: ReconcileRecordRow } | { kind: 'change'; row: ChangeRecordRow };

export interface AuditWriterMetrics {
  depth(rows: number): void;
  written(rows: number): void;
  dropped(rows: number): void;
  failed(): void;
}

export interface AuditWriterOptions {
  sink: AuditSink;
  /** Most rows held while the database is slow or away; beyond it new rows are dropped and counted. */
  limit?: number;
  /** Longest a queued row waits before its batch is written. */
  flushIntervalMs?: number;
  /** Most rows per transaction. */
  maxBatch?: number;
  /** Longest wait between attempts while the database fails (doubling from flushIntervalMs). */
  maxRetryDelayMs?: number;
  logger?: RuntimeLogger;
  metrics?: AuditWriterMetrics;
}

/**
 * Writes the audit trail in the background so neither a reconcile nor a REST request waits on the database:
 * `record`, `change` and `noop` only queue. Reconcile and change records share one queue, in order, and its
 * bound. Queued rows are written in one transaction per batch within `flushIntervalMs`; a failed batch
 * stays at the head of the queue and is retried with a doubling delay, so rows are neither lost nor reordered
 * while the queue has room. `close` writes whatever is left.
 */
export class AuditWriter {
  private readonly queue: QueuedRow[] = [];
  private readonly noops = new Map<string, NoopCount>();
  private readonly limit: number;
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxRetryDelayMs: number;
  private readonly logger: RuntimeLogger;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<boolean> | undefined;
  private retryDelayMs = 0;
  /** Rows dropped since the queue last filled up; reported once a batch is stored again. */
  private droppedInOutage = 0;
  private closed = false;

  constructor(private readonly options: AuditWriterOptions) {
    this.limit = options.limit ?? 10_000;
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.logger = options.logger ?? silentLogger;
  }

  get queued(): number {
    return this.queue.length;
  }

  /** Queues a reconcile that acted or failed. */
  record(row: ReconcileRecordRow): void {
    this.enqueue({ kind: 'reconcile', row });
  }

  /** Queues a write made through the REST API. */
  change(row: ChangeRecordRow): void {
    this.enqueue({ kind: 'change', row });
  }

  /** Counts a reconcile of `namespace/name` that changed nothing. */
  noop(namespace: string, name: string, at: Date): void {
    this.addNoop({ namespace, name, count: 1, lastAt: at });
    this.schedule(this.flushIntervalMs);
  }

  /** Writes everything queued; on failure logs how much is lost. For process shutdown. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    while (this.queue.length > 0 || this.noops.size > 0) {
      if (!(await this.flush())) {
        this.logger.error('audit records lost at shutdown: the database did not take them', {
          rows: this.queue.length,
        });
        this.options.metrics?.dropped(this.queue.length);
        return;
      }
    }
  }

  /** Writes one batch now; true when it was stored (or there was nothing to store). */
  flush(): Promise<boolean> {
    this.flushing ??= this.writeBatch().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private enqueue(entry: QueuedRow): void {
    if (this.queue.length >= this.limit) {
      if (this.droppedInOutage === 0)
        this.logger.error('audit queue full: dropping audit records until the database catches up', {
          limit: this.limit,
        });
      this.droppedInOutage++;
      this.options.metrics?.dropped(1);
      return;
    }
    this.queue.push(entry);
    this.options.metrics?.depth(this.queue.length);
    this.schedule(this.flushIntervalMs);
  }

  private schedule(delayMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().then((stored) => {
        if (!stored) this.schedule(this.retryDelayMs);
        else if (this.queue.length > 0 || this.noops.size > 0) this.schedule(this.flushIntervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async writeBatch(): Promise<boolean> {
    const entries = this.queue.slice(0, this.maxBatch);
    const noops = [...this.noops.values()];
    if (entries.length === 0 && noops.length === 0) return true;
    const rows: ReconcileRecordRow[] = [];
    const changes: ChangeRecordRow[] = [];
    for (const entry of entries) {
      if (entry.kind === 'reconcile') rows.push(entry.row);
      else changes.push(entry.row);
    }
    this.noops.clear();
    try {
      await this.options.sink.write({ rows, changes, noops });
    } catch (error) {
      for (const noop of noops) this.addNoop(noop);
      this.options.metrics?.failed();
      if (this.retryDelayMs === 0)
        this.logger.error('audit database unavailable: keeping records queued', {
          error: error instanceof Error ? error.message : String(error),
          queued: this.queue.length,
          limit: this.limit,
        });
      this.retryDelayMs = Math.min(
        Math.max(this.retryDelayMs * 2, this.flushIntervalMs),
        this.maxRetryDelayMs,
      );
      return false;
    }
    this.queue.splice(0, entries.length);
    this.options.metrics?.written(entries.length);
    this.options.metrics?.depth(this.queue.length);
    if (this.retryDelayMs > 0 || this.droppedInOutage > 0) {
      this.logger.info('audit writer caught up: writing queued records', {
        queued: this.queue.length + entries.length,
        droppedWhileUnavailable: this.droppedInOutage,
      });
      this.retryDelayMs = 0;
      this.droppedInOutage = 0;
    }
    return true;
  }

  private addNoop(noop: NoopCount): void {
    const key = `${noop.namespace}/${noop.name}`;
    const known = this.noops.get(key);
    if (!known) this.noops.set(key, { ...noop });
    else {
      known.count += noop.count;
      if (noop.lastAt > known.lastAt) known.lastAt = noop.lastAt;
    }
  }
}
