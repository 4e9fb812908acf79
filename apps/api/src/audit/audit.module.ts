import { Global, Module } from '@nestjs/common';
import { AuditTrail } from './audit-trail.service.js';
import { AuditController } from './audit.controller.js';
import { auditDatabaseProvider, PrismaService } from './prisma.service.js';
import { RefusalRecorder } from '../auth/refusal-recorder.js';
import { RefusalAudit } from './refusal-audit.js';

@Global()
@Module({
  controllers: [AuditController],
  providers: [
    auditDatabaseProvider,
    PrismaService,
    AuditTrail,
    RefusalAudit,
    // The port the refusing places (auth, live, rest) record through, implemented here.
    { provide: RefusalRecorder, useExisting: RefusalAudit },
  ],
  exports: [auditDatabaseProvider, PrismaService, AuditTrail, RefusalRecorder],
})
export class AuditModule {}
