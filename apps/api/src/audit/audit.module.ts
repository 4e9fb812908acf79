import { Global, Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail.service.js';
import { AuditController } from './audit.controller.js';
import { auditDatabaseProvider, PrismaService } from './prisma.service.js';

@Global()
@Module({
  controllers: [AuditController],
  providers: [auditDatabaseProvider, PrismaService, AuditTrail],
  exports: [auditDatabaseProvider, PrismaService, AuditTrail],
})
export class AuditModule {}
