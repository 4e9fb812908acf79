import type { AuditSink } from './audit-writer.js';
import type { AuditPrismaClient } from './prisma-client.js';
import type { NoopCount, ReconcileRecordRow } from './reconcile-record.js';

/** The audit trail's tables through Prisma: batches in one transaction, and pruning by age. */
export class PrismaAuditSink implements AuditSink {
  constructor(private readonly prisma: AuditPrismaClient) {}

  async write({ rows, noops }: { rows: ReconcileRecordRow[]; noops: NoopCount[] }): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.reconcileRecord.createMany({ data: rows }),
      ...noops.map(({ namespace, name, count, lastAt }) =>
        this.prisma.reconcileNoop.upsert({
          where: { namespace_name: { namespace, name } },
          create: { namespace, name, count, lastAt },
          update: { count: { increment: count }, lastAt },
        }),
      ),
    ]);
  }

  /** Deletes reconcile records that started, and no-op counts last bumped, before `before`. */
  async prune(before: Date): Promise<{ records: number; noops: number }> {
    const [records, noops] = await this.prisma.$transaction([
      this.prisma.reconcileRecord.deleteMany({ where: { startedAt: { lt: before } } }),
      this.prisma.reconcileNoop.deleteMany({ where: { lastAt: { lt: before } } }),
    ]);
    return { records: records.count, noops: noops.count };
  }
}
