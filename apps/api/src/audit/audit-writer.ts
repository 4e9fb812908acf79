import { silentLogger, type RuntimeLogger, errorMessage } from '@ngx/kube-runtime';
import { gapEntry, LossTally } from './audit-gap.js';
import type { ChangeRecordRow } from './change-record.js';
import { addNoopCount, type NoopCount, type ReconcileRecordRow } from './reconcile-record.js';
import {
  RefusalTally,
  type RefusalCount,
  type RefusalTallyOptions,
  type TalliedRefusal,
} from './refusal-tally.js';
import { storableRow } from './storable-row.js';
import type { TimelineEntryRow } from './timeline-entry.js';

/** What one transaction stores: reconcile records, change records, timeline entries, no-op and refusal counts. */
export interface AuditBatch {
  rows: ReconcileRecordRow[];
  changes: ChangeRecordRow[];
  /** Absent: none. */
  entries?: TimelineEntryRow[];
  noops: NoopCount[];
  /** Absent: none. */
  refusals?: RefusalCount[];
}

/**
 * Where batches go: one call is one transaction (all rows and counts of the batch, or none). Rejects with
 * AuditRefusedError when the database refused the data of some row (writing the same rows again cannot succeed);
 * any other rejection means the database could not take the batch now (it is written again later).
 */
export interface AuditSink {
  write(batch: AuditBatch): Promise<void>;
}

/** The database refused the data of a batch (a value or a constraint), as opposed to being away. */
export class AuditRefusedError extends Error {
  override name = 'AuditRefusedError';
  /** @param reason the database's code and one-line message, without the rows' content. */
  constructor(
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`the audit database refused the data: ${reason}`, options);
  }
}

/** A queued row of either kind; one queue keeps them in the order they happened and under one bound. */
type QueuedRow =
  | { kind: 'reconcile'; row: ReconcileRecordRow }
  | { kind: 'change'; row: ChangeRecordRow }
  | { kind: 'entry'; row: TimelineEntryRow };

export interface AuditWriterMetrics {
  depth(rows: number): void;
  written(rows: number): void;
  dropped(rows: number): void;
  /** Rows or no-op counts the database refused; dropped. */
  rejected(rows: number): void;
  failed(): void;
}

export interface AuditWriterOptions {
  sink: AuditSink;
  /** Most rows held while the database is slow or away; beyond it new rows are dropped and counted. */
  limit?: number;
  /** Longest a queued reconcile or change record waits before its batch is written. */
  flushIntervalMs?: number;
  /**
   * Longest a queued timeline entry waits (default 1 s) while no record is queued: entries come in bursts (a pod's
   * transitions, its Events) and are read later, so collecting a second of them in one transaction costs the
   * database about half the CPU per entry that a transaction every flushIntervalMs does.
   */
  entryFlushIntervalMs?: number;
  /**
   * Shortest time between two writes of no-op counts (default 1 s): while Nginxes converge, nearly every
   * reconcile is a no-op, and one upsert per Nginx per batch would cost more CPU than the reconciles themselves.
   */
  noopFlushIntervalMs?: number;
  /** Most rows per transaction. */
  maxBatch?: number;
  /** Longest wait between attempts while the database fails (doubling from flushIntervalMs). */
  maxRetryDelayMs?: number;
  /** How refused requests are folded into counts while they wait (RefusalTally's defaults). */
  refusals?: RefusalTallyOptions;
  logger?: RuntimeLogger;
  metrics?: AuditWriterMetrics;
}

/**
 * Writes the audit trail in the background so neither a reconcile nor a REST request waits on the database:
 * `record`, `change` and `noop` only queue. Guarantees:
 * - What is queued is what is stored: every string field is made storable (storableRow) on the way in.
 * - Reconcile and change records share one queue, in order, and its bound (`limit`); beyond it new rows are
 *   dropped and counted (`dropped`), and once a batch is stored again, one `gap` timeline entry per Nginx says how
 *   many of its records were lost and when (audit-gap.ts).
 * - Queued rows are written in one transaction per batch within `flushIntervalMs` of a reconcile or change
 *   record, or `entryFlushIntervalMs` of a timeline entry (or as soon as `maxBatch` rows wait). No-op counts are folded per
 *   Nginx and written with a batch at most once per `noopFlushIntervalMs` (the first after a quiet spell within
 *   `flushIntervalMs`), so a converging Nginx costs the database one upsert a second, not one per batch.
 * - While the database is away (any failure but a refusal) the batch stays at the head of the queue and is
 *   retried with a doubling delay, so rows are neither lost nor reordered while the queue has room.
 * - When the database refuses a batch's data (AuditRefusedError), that batch is written again one row (or no-op
 *   count) per transaction, in order: the rows it takes are kept, each row it refuses is dropped, counted
 *   (`rejected`) and logged once without its content, and the queue carries on. A row refused on its own is
 *   never tried again; if the database goes away midway, the rows not yet written stay queued.
 * - Refused requests are counters too (RefusalTally: per minute window and key, bounded in memory), written with
 *   the no-op counts on the same cadence; a refusal the tally cannot hold is dropped and counted (`dropped`).
 * - `close` writes whatever is left (what the database refuses is dropped as above).
 */
export class AuditWriter {
  private readonly queue: QueuedRow[] = [];
  /** Reconcile and change records in `queue` (the rest are timeline entries). */
  private recordsQueued = 0;
  private readonly noops = new Map<string, NoopCount>();
  private readonly refusals: RefusalTally;
  private readonly limit: number;
  private readonly flushIntervalMs: number;
  private readonly entryFlushIntervalMs: number;
  private readonly noopFlushIntervalMs: number;
  /** When no-op counts were last stored (epoch ms). */
  private noopsStoredAt = -Infinity;
  /** When the pending timer fires (epoch ms), so a sooner flush can replace a later one. */
  private timerDueAt = 0;
  private readonly maxBatch: number;
  private readonly maxRetryDelayMs: number;
  private readonly logger: RuntimeLogger;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<boolean> | undefined;
  private retryDelayMs = 0;
  /** Rows dropped since the queue last filled up; reported once a batch is stored again. */
  private droppedInOutage = 0;
  /** The same rows by Nginx: stored as gap entries once a batch is stored again. */
  private readonly dropped = new LossTally();
  private closed = false;

  constructor(private readonly options: AuditWriterOptions) {
    this.limit = options.limit ?? 10_000;
    this.flushIntervalMs = options.flushIntervalMs ?? 100;
    this.entryFlushIntervalMs = Math.max(this.flushIntervalMs, options.entryFlushIntervalMs ?? 1_000);
    this.noopFlushIntervalMs = options.noopFlushIntervalMs ?? 1_000;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
    this.logger = options.logger ?? silentLogger;
    this.refusals = new RefusalTally(options.refusals);
  }

  get queued(): number {
    return this.queue.length;
  }

  /** How many more rows the queue takes before it drops them. */
  get room(): number {
    return Math.max(0, this.limit - this.queue.length);
  }

  /** Queues a reconcile that acted or failed. */
  record(row: ReconcileRecordRow): void {
    this.enqueue({ kind: 'reconcile', row: storableRow(row) });
  }

  /** Queues a write made through the REST API. */
  change(row: ChangeRecordRow): void {
    this.enqueue({ kind: 'change', row: storableRow(row) });
  }

  /** Queues a timeline entry (kept evidence: an Event, a pod transition, a condition change, a pod write). */
  entry(row: TimelineEntryRow): void {
    this.enqueue({ kind: 'entry', row: storableRow(row) });
  }

  /** Counts a reconcile of `namespace/name` that changed nothing. */
  noop(namespace: string, name: string, at: Date): void {
    this.addNoop(storableRow({ namespace, name, count: 1, lastAt: at }));
    this.schedule(this.noopsDelayMs());
  }

  /** Counts a refused request (folded with others of its window and key; never waits). */
  refusal(refusal: TalliedRefusal): void {
    if (this.refusals.add(storableRow(refusal)) === 'dropped') this.options.metrics?.dropped(1);
    this.schedule(this.noopsDelayMs());
  }

  /** Counters (no-op and refusal counts) waiting to be written. */
  private get countersHeld(): boolean {
    return this.noops.size > 0 || this.refusals.size > 0;
  }

  /** How long until no-op counts may be written again (at least the flush interval). */
  private noopsDelayMs(): number {
    return Math.max(this.flushIntervalMs, this.noopsStoredAt + this.noopFlushIntervalMs - Date.now());
  }

  /** Writes everything queued; on failure logs how much is lost. For process shutdown. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.flushing;
    while (this.queue.length > 0 || this.countersHeld) {
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
      const { namespace, name, at } = describeRow(entry);
      this.dropped.add(namespace, name, at);
      this.options.metrics?.dropped(1);
      return;
    }
    this.queue.push(entry);
    if (entry.kind !== 'entry') this.recordsQueued++;
    this.options.metrics?.depth(this.queue.length);
    this.schedule(entry.kind === 'entry' ? this.queuedDelayMs() : this.flushIntervalMs);
  }

  /** How long the queue as it is may wait: the shorter interval if a record is queued or a batch is full. */
  private queuedDelayMs(): number {
    const urgent = this.queue.length >= this.maxBatch || this.recordsQueued > 0;
    return urgent ? this.flushIntervalMs : this.entryFlushIntervalMs;
  }

  /** Takes the first `count` queued rows off the queue. */
  private dequeue(count: number): void {
    for (const row of this.queue.splice(0, count)) if (row.kind !== 'entry') this.recordsQueued--;
  }

  /** Flushes in `delayMs`, unless a flush is already due sooner. */
  private schedule(delayMs: number): void {
    if (this.closed) return;
    const dueAt = Date.now() + delayMs;
    if (this.timer) {
      if (this.timerDueAt <= dueAt) return;
      clearTimeout(this.timer);
    }
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush().then((stored) => {
        if (!stored) this.schedule(this.retryDelayMs);
        else if (this.queue.length > 0) this.schedule(this.queuedDelayMs());
        else if (this.countersHeld) this.schedule(this.noopsDelayMs());
      });
    }, delayMs);
    this.timer.unref();
  }

  private async writeBatch(): Promise<boolean> {
    const entries = this.queue.slice(0, this.maxBatch);
    const noopsDue = this.closed || Date.now() - this.noopsStoredAt >= this.noopFlushIntervalMs;
    const noops = noopsDue ? [...this.noops.values()] : [];
    const refusals = noopsDue ? this.refusals.drain() : [];
    if (entries.length === 0 && noops.length === 0 && refusals.length === 0) return true;
    if (noopsDue) this.noops.clear();
    try {
      await this.options.sink.write(batchOf(entries, { noops, refusals }));
    } catch (error) {
      this.options.metrics?.failed();
      if (error instanceof AuditRefusedError) return this.writeOneByOne(entries, { noops, refusals });
      this.keepForRetry(error, { noops, refusals });
      return false;
    }
    this.dequeue(entries.length);
    if (noops.length > 0 || refusals.length > 0) this.noopsStoredAt = Date.now();
    this.stored(entries.length);
    this.caughtUp(entries.length);
    return true;
  }

  /**
   * Writes a refused batch again one row per transaction, in order, then the no-op counts: drops only what the
   * database refuses. Stops at the first other failure, keeping what is left for the retry.
   */
  private async writeOneByOne(entries: QueuedRow[], counters: Counters): Promise<boolean> {
    const { noops, refusals } = counters;
    for (const entry of entries) {
      const outcome = await this.writeAlone(batchOf([entry], NO_COUNTERS), counters);
      if (outcome === 'away') return false;
      // Only writeBatch takes rows off the head, and flushes do not overlap: the head is `entry`.
      this.dequeue(1);
      if (outcome === 'stored') this.stored(1);
      else this.reject(entry.kind, describeRow(entry), outcome.refused);
    }
    for (const [index, noop] of noops.entries()) {
      const outcome = await this.writeAlone(
        { rows: [], changes: [], noops: [noop] },
        { noops: noops.slice(index), refusals },
      );
      if (outcome === 'away') return false;
      if (outcome !== 'stored')
        this.reject('noop', { namespace: noop.namespace, name: noop.name, at: noop.lastAt }, outcome.refused);
    }
    for (const [index, refusal] of refusals.entries()) {
      const outcome = await this.writeAlone(
        { rows: [], changes: [], noops: [], refusals: [refusal] },
        { noops: [], refusals: refusals.slice(index) },
      );
      if (outcome === 'away') return false;
      if (outcome !== 'stored')
        this.reject('refusal', { namespace: '', name: refusal.door, at: refusal.lastAt }, outcome.refused);
    }
    this.caughtUp(entries.length);
    return true;
  }

  /** Writes one row or count alone; when the database is away, the `unwritten` counters go back for the retry. */
  private async writeAlone(batch: AuditBatch, unwritten: Counters): Promise<AloneOutcome> {
    try {
      await this.options.sink.write(batch);
      return 'stored';
    } catch (error) {
      if (error instanceof AuditRefusedError) return { refused: error.reason };
      this.options.metrics?.failed();
      this.keepForRetry(error, unwritten);
      return 'away';
    }
  }

  private keepForRetry(error: unknown, { noops, refusals }: Counters): void {
    for (const noop of noops) this.addNoop(noop);
    const lost = this.refusals.restore(refusals);
    if (lost > 0) this.options.metrics?.dropped(lost);
    if (this.retryDelayMs === 0)
      this.logger.error('audit database unavailable: keeping records queued', {
        error: errorMessage(error),
        queued: this.queue.length,
        limit: this.limit,
      });
    this.retryDelayMs = Math.min(Math.max(this.retryDelayMs * 2, this.flushIntervalMs), this.maxRetryDelayMs);
  }

  private reject(kind: QueuedRow['kind'] | 'noop' | 'refusal', row: RowSummary, reason: string): void {
    this.options.metrics?.rejected(1);
    this.options.metrics?.depth(this.queue.length);
    this.logger.error('audit record refused by the database: dropped', { kind, ...row, reason });
  }

  private stored(rows: number): void {
    this.options.metrics?.written(rows);
    this.options.metrics?.depth(this.queue.length);
  }

  /** After a stored batch: ends an outage, reporting it once. */
  private caughtUp(written: number): void {
    if (this.retryDelayMs > 0 || this.droppedInOutage > 0) {
      this.logger.info('audit writer caught up: writing queued records', {
        queued: this.queue.length + written,
        droppedWhileUnavailable: this.droppedInOutage,
      });
      this.retryDelayMs = 0;
      this.droppedInOutage = 0;
      // Past the limit on purpose: the record of what was lost is the one record that must not be lost.
      for (const gap of this.dropped.drain('audit-queue-overflow', "the app's audit writer"))
        this.queue.push({ kind: 'entry', row: storableRow(gapEntry(gap)) });
      if (this.queue.length > 0) this.schedule(this.flushIntervalMs);
    }
  }

  private addNoop(noop: NoopCount): void {
    addNoopCount(this.noops, noop);
  }
}

/** How writing one row alone went: stored, refused (with the database's reason), or the database was away. */
type AloneOutcome = 'stored' | 'away' | { refused: string };

/** What a log line tells of a refused row: which Nginx and when, not its content. */
interface RowSummary {
  namespace: string;
  name: string;
  at: Date;
}

function describeRow(entry: QueuedRow): RowSummary {
  if (entry.kind === 'entry')
    return { namespace: entry.row.namespace, name: entry.row.nginx, at: entry.row.at };
  const { namespace, name } = entry.row;
  return { namespace, name, at: entry.kind === 'reconcile' ? entry.row.startedAt : entry.row.at };
}

/** The counters a batch carries, given back for the retry when the database is away. */
interface Counters {
  noops: NoopCount[];
  refusals: RefusalCount[];
}

const NO_COUNTERS: Counters = { noops: [], refusals: [] };

function batchOf(entries: QueuedRow[], { noops, refusals }: Counters): AuditBatch {
  const rows: ReconcileRecordRow[] = [];
  const changes: ChangeRecordRow[] = [];
  const kept: TimelineEntryRow[] = [];
  for (const entry of entries) {
    if (entry.kind === 'reconcile') rows.push(entry.row);
    else if (entry.kind === 'change') changes.push(entry.row);
    else kept.push(entry.row);
  }
  return {
    rows,
    changes,
    ...(kept.length > 0 && { entries: kept }),
    noops,
    ...(refusals.length > 0 && { refusals }),
  };
}
