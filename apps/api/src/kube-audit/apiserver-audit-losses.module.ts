import { Module } from '@nestjs/common';
import { ControllerModule } from '../controller/controller.module.js';
import { ApiserverAuditLosses } from './apiserver-audit-losses.service.js';

/**
 * The poller of kube-apiserver's audit-event losses, in the roles that reconcile: one instance must read it, and the
 * controller's Lease already elects one (ApiserverAuditLosses reads only while leading).
 */
@Module({ imports: [ControllerModule], providers: [ApiserverAuditLosses] })
export class ApiserverAuditLossesModule {}
