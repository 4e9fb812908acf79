import { Module } from '@nestjs/common';
import { AuditLogSource } from './audit-log-source.service.js';
import { AuditWebhookController } from './audit-webhook.controller.js';
import { KubeAuditIngest } from './kube-audit-ingest.service.js';
import { ObservedChanges } from './observed-changes.service.js';
import { TimelineModule } from '../timeline/timeline.module.js';

/**
 * kube-apiserver's audit events as change records (the API's part): the webhook receiver (or a log file followed)
 * and the ingest behind it, and the changes the Nginx informer saw that no audit event explains.
 */
@Module({
  imports: [TimelineModule],
  controllers: [AuditWebhookController],
  providers: [KubeAuditIngest, ObservedChanges, AuditLogSource],
  exports: [KubeAuditIngest],
})
export class KubeAuditModule {}
