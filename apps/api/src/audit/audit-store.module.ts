import { Global, Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail.service.js';
import { auditDatabaseProvider, PrismaService } from './prisma.service.js';

/**
 * The audit database and the trail's background writer, which every role records through: the controller its
 * reconciles, the API its changes, refusals and the timeline's evidence.
 */
@Global()
@Module({
  providers: [auditDatabaseProvider, PrismaService, AuditTrail],
  exports: [auditDatabaseProvider, PrismaService, AuditTrail],
})
export class AuditStoreModule {}
