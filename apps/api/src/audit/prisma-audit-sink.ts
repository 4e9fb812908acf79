import { CHANGE_RECORD_TABLE, RECONCILE_NOOP_TABLE, RECONCILE_RECORD_TABLE } from './audit-tables.js';
import { AuditRefusedError, type AuditBatch, type AuditSink } from './audit-writer.js';
import { insertStatements } from './batch-statements.js';
import { refusalReason } from './database-refusal.js';
import type { AuditPrismaClient } from './prisma-client.js';
import { addNoopCount, type NoopCount } from './reconcile-record.js';

/** What one retention pass deleted. */
export interface PruneResult {
  records: number;
  changes: number;
  noops: number;
}

/**
 * Adds a batch's no-op counts to the stored ones: a count new to the table is inserted, a known one grows and
 * takes the batch's last time.
 */
const ADD_TO_NOOP_COUNT =
  'ON CONFLICT ("namespace", "name") DO UPDATE SET "count" = "ReconcileNoop"."count" + excluded."count", ' +
  '"lastAt" = excluded."lastAt"';

/**
 * The audit trail's tables through Prisma: batches in one transaction, and pruning by age. A write the database
 * refused for its data rejects with AuditRefusedError (see refusalReason), as does a row whose values do not fit
 * the tables (checked before anything is sent); other failures reject as they came.
 *
 * Batches are written as multi-row INSERTs through `$executeRaw` (batch-statements.ts), not `createMany` and one
 * `upsert` per no-op count: Prisma's query compiler costs CPU per row and per call, and measured on SQLite a
 * batch of 50 records and 100 no-op counts cost about 140 ms of CPU through the model API against 19 ms as
 * statements. Reads stay on the model API.
 */
export class PrismaAuditSink implements AuditSink {
  constructor(private readonly prisma: AuditPrismaClient) {}

  async write({ rows, changes, noops }: AuditBatch): Promise<void> {
    const statements = [
      ...insertStatements(RECONCILE_RECORD_TABLE, rows),
      ...insertStatements(CHANGE_RECORD_TABLE, changes),
      // One statement may not touch a key twice (PostgreSQL refuses it), so counts of one Nginx are added first.
      ...insertStatements(RECONCILE_NOOP_TABLE, foldNoops(noops), ADD_TO_NOOP_COUNT),
    ];
    if (statements.length === 0) return;
    try {
      await this.prisma.$transaction(
        statements.map(({ strings, values }) =>
          this.prisma.$executeRaw(strings as unknown as TemplateStringsArray, ...values),
        ),
      );
    } catch (error) {
      const reason = refusalReason(error);
      throw reason === undefined ? error : new AuditRefusedError(reason, { cause: error });
    }
  }

  /**
   * Deletes reconcile records that started, change records made, and no-op counts last bumped, before `before`.
   */
  async prune(before: Date): Promise<PruneResult> {
    const [records, changes, noops] = await this.prisma.$transaction([
      this.prisma.reconcileRecord.deleteMany({ where: { startedAt: { lt: before } } }),
      this.prisma.changeRecord.deleteMany({ where: { at: { lt: before } } }),
      this.prisma.reconcileNoop.deleteMany({ where: { lastAt: { lt: before } } }),
    ]);
    return { records: records.count, changes: changes.count, noops: noops.count };
  }
}

/** One count per Nginx: counts of the same Nginx added up, with the latest time. */
function foldNoops(noops: readonly NoopCount[]): NoopCount[] {
  const folded = new Map<string, NoopCount>();
  for (const noop of noops) addNoopCount(folded, noop);
  return [...folded.values()];
}
