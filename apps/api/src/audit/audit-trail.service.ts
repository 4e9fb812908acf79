import { gapEntry, type AuditGap } from './audit-gap.js';
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { Counter, Gauge, Registry } from 'prom-client';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { AuditRetention } from './audit-retention.js';
import { AuditWriter } from './audit-writer.js';
import type { ChangeRecordRow } from './change-record.js';
import type { AuditDatabase } from './audit-database.js';
import { PrismaAuditSink } from './prisma-audit-sink.js';
import { AUDIT_DATABASE } from './prisma.service.js';
import type { ReconcileRecordRow } from './reconcile-record.js';
import type { TalliedRefusal } from './refusal-tally.js';
import type { TimelineEntryRow } from './timeline-entry.js';

const HOUR_MS = 3_600_000;

/**
 * The audit trail of reconciles and of writes made through the REST API: rows and no-op counts go through one
 * background writer (neither the reconciler nor a request waits on the database) and old rows are pruned
 * hourly. Flushed when the app shuts down, after the controller
 * has drained (the controller stops in onModuleDestroy, which Nest runs before this hook).
 */
@Injectable()
export class AuditTrail implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = nestRuntimeLogger(new Logger('AuditTrail'));
  private readonly writer: AuditWriter;
  private readonly enabled: boolean;
  private readonly retention: AuditRetention;

  constructor(
    @Inject(AUDIT_DATABASE) database: AuditDatabase,
    @Inject(appConfig.KEY) config: AppConfig,
    @Inject(Registry) registry: Registry,
  ) {
    this.enabled = config.audit.enabled;
    const metrics = auditMetrics(registry);
    const sink = new PrismaAuditSink(database);
    this.writer = new AuditWriter({
      sink,
      limit: config.audit.queueLimit,
      logger: this.logger,
      metrics: {
        depth: (rows) => metrics.depth.set(rows),
        written: (rows) => metrics.written.inc(rows),
        dropped: (rows) => metrics.dropped.inc(rows),
        rejected: (rows) => metrics.rejected.inc(rows),
        failed: () => metrics.failures.inc(),
      },
    });
    this.retention = new AuditRetention({
      prune: (before) => sink.prune(before),
      maxAgeMs: config.audit.retentionDays * 24 * HOUR_MS,
      intervalMs: HOUR_MS,
      logger: this.logger,
      pruned: (records) => metrics.pruned.inc(records),
    });
  }

  onApplicationBootstrap(): void {
    this.retention.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.retention.stop();
    await this.writer.close();
  }

  record(row: ReconcileRecordRow): void {
    if (this.enabled) this.writer.record(row);
  }

  noop(namespace: string, name: string, at: Date): void {
    if (this.enabled) this.writer.noop(namespace, name, at);
  }

  /** Records a write made through the REST API to an Nginx (queued; never throws, never waits). */
  change(row: ChangeRecordRow): void {
    if (this.enabled) this.writer.change(row);
  }

  /** Counts a refused request (folded per minute and key in memory; never throws, never waits). */
  refusal(refusal: TalliedRefusal): void {
    if (this.enabled) this.writer.refusal(refusal);
  }

  /** Keeps a piece of evidence for the timeline (queued; never throws, never waits). */
  entry(row: TimelineEntryRow): void {
    if (this.enabled) this.writer.entry(row);
  }

  /**
   * Records what the audit knows it missed, as a timeline entry (audit-gap.ts) — with or without the rest of the
   * timeline's evidence (AUDIT_TIMELINE), since a hole in the change trail is the audit's own business.
   */
  gap(gap: AuditGap): void {
    if (this.enabled) this.writer.entry(gapEntry(gap));
  }

  /**
   * Queues all of `rows` and `entries` when the queue has room for them all, else none (false): for a sender that can send
   * them again later (kube-apiserver's audit webhook), which is better than a record dropped.
   */
  changes(rows: readonly ChangeRecordRow[], entries: readonly TimelineEntryRow[] = []): boolean {
    if (!this.enabled) return true;
    if (this.writer.room < rows.length + entries.length) return false;
    for (const row of rows) this.writer.change(row);
    for (const entry of entries) this.writer.entry(entry);
    return true;
  }
}

function auditMetrics(registry: Registry) {
  const registers = [registry];
  return {
    depth: new Gauge({
      name: 'nginx_audit_queue_depth',
      help: 'Reconcile and change records waiting to be written to the audit database.',
      registers,
    }),
    written: new Counter({
      name: 'nginx_audit_records_written_total',
      help: 'Reconcile and change records written to the audit database.',
      registers,
    }),
    dropped: new Counter({
      name: 'nginx_audit_records_dropped_total',
      help: 'Reconcile and change records dropped because the audit queue was full (database unavailable or too slow).',
      registers,
    }),
    rejected: new Counter({
      name: 'nginx_audit_records_rejected_total',
      help: 'Reconcile records, change records and no-op counts the audit database refused for their data (dropped, each logged).',
      registers,
    }),
    failures: new Counter({
      name: 'nginx_audit_write_failures_total',
      help: 'Audit writes the database refused (then written row by row) or could not take (retried).',
      registers,
    }),
    pruned: new Counter({
      name: 'nginx_audit_records_pruned_total',
      help: 'Reconcile and change records deleted by retention.',
      registers,
    }),
  };
}
