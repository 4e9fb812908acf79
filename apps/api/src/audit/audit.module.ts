import { Global, Module } from '@nestjs/common';
import { AuditController } from './audit.controller.js';
import { RefusalRecorder } from '../auth/refusal-recorder.js';
import { PendingSignInRecords, SessionRecords } from '../auth/session/session-records.js';
import type { AuditDatabase } from './audit-database.js';
import { AUDIT_DATABASE } from './prisma.service.js';
import { RefusalAudit } from './refusal-audit.js';
import { SqlPendingSignInRecords, SqlSessionRecords } from './session-tables.js';

/**
 * The audit as the API serves it: its read and export endpoints, and the refusals the API's doors record (over
 * AuditStoreModule's trail); and, in the same database, the browser sessions and sign-ins under way that every API
 * replica shares (the ports auth/ reads them through, implemented here).
 */
@Global()
@Module({
  controllers: [AuditController],
  providers: [
    RefusalAudit,
    // The port the refusing places (auth, live, rest) record through, implemented here.
    { provide: RefusalRecorder, useExisting: RefusalAudit },
    {
      provide: SessionRecords,
      inject: [AUDIT_DATABASE],
      useFactory: (database: AuditDatabase) => new SqlSessionRecords(database),
    },
    {
      provide: PendingSignInRecords,
      inject: [AUDIT_DATABASE],
      useFactory: (database: AuditDatabase) => new SqlPendingSignInRecords(database),
    },
  ],
  exports: [RefusalRecorder, SessionRecords, PendingSignInRecords],
})
export class AuditModule {}
