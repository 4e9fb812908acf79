import { Module } from '@nestjs/common';
import { AdmissionRegistrationModule } from '../admission/admission-registration.module.js';
import { ControllerModule } from '../controller/controller.module.js';
import { HealthModule } from '../health/health.module.js';
import { ApiserverAuditLossesModule } from '../kube-audit/apiserver-audit-losses.module.js';
import { controllerReadiness } from './controller-readiness.provider.js';
import { SHARED_MODULES } from './shared-modules.js';
import { OwnEventsTimelineModule } from '../timeline/own-events-timeline.module.js';

/**
 * ROLE=controller: the reconciler and what it needs — its informers and Lease, the audit of its reconciles and of the
 * Events it writes, the poller of kube-apiserver's audit losses (while leading), the admission webhook's
 * registration — with /healthz,
 * /readyz and /metrics. Nothing that serves people is loaded: no REST, UI, live gateway, sign-in or OpenAPI.
 */
@Module({
  imports: [
    ...SHARED_MODULES,
    ControllerModule,
    ApiserverAuditLossesModule,
    AdmissionRegistrationModule,
    OwnEventsTimelineModule,
    HealthModule.with({ imports: [ControllerModule], providers: [controllerReadiness] }),
  ],
})
export class ControllerRoleModule {}
