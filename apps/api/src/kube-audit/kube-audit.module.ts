import { Module } from '@nestjs/common';
import { ControllerModule } from '../controller/controller.module.js';
import { ApiserverAuditLosses } from './apiserver-audit-losses.service.js';
import { AuditLogSource } from './audit-log-source.service.js';
import { AuditWebhookController } from './audit-webhook.controller.js';
import { KubeAuditIngest } from './kube-audit-ingest.service.js';
import { ObservedChanges } from './observed-changes.service.js';
import { TimelineModule } from '../timeline/timeline.module.js';

/** kube-apiserver's audit events as change records: the webhook receiver and the ingest behind it. */
@Module({
  imports: [TimelineModule, ControllerModule],
  controllers: [AuditWebhookController],
  providers: [KubeAuditIngest, ObservedChanges, AuditLogSource, ApiserverAuditLosses],
  exports: [KubeAuditIngest],
})
export class KubeAuditModule {}
