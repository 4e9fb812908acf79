import { AuditRefusedError, type AuditBatch, type AuditSink } from './audit-writer.js';
import { refusalReason } from './database-refusal.js';
import type { AuditPrismaClient } from './prisma-client.js';

/** What one retention pass deleted. */
export interface PruneResult {
  records: number;
  changes: number;
  noops: number;
}

/**
 * The audit trail's tables through Prisma: batches in one transaction, and pruning by age. A write the database
 * refused for its data rejects with AuditRefusedError (see refusalReason); other failures reject as they came.
 */
export class PrismaAuditSink implements AuditSink {
  constructor(private readonly prisma: AuditPrismaClient) {}

  async write(batch: AuditBatch): Promise<void> {
    try {
      await this.writeTransaction(batch);
    } catch (error) {
      const reason = refusalReason(error);
      throw reason === undefined ? error : new AuditRefusedError(reason, { cause: error });
    }
  }

  private async writeTransaction({ rows, changes, noops }: AuditBatch): Promise<void> {
    await this.prisma.$transaction([
      ...(rows.length > 0 ? [this.prisma.reconcileRecord.createMany({ data: rows })] : []),
      ...(changes.length > 0 ? [this.prisma.changeRecord.createMany({ data: changes })] : []),
      ...noops.map(({ namespace, name, count, lastAt }) =>
        this.prisma.reconcileNoop.upsert({
          where: { namespace_name: { namespace, name } },
          create: { namespace, name, count, lastAt },
          update: { count: { increment: count }, lastAt },
        }),
      ),
    ]);
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
