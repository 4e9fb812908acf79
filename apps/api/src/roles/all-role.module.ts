import { Module } from '@nestjs/common';
import { AdmissionRegistrationModule } from '../admission/admission-registration.module.js';
import { ControllerModule } from '../controller/controller.module.js';
import { HealthModule } from '../health/health.module.js';
import { ApiserverAuditLossesModule } from '../kube-audit/apiserver-audit-losses.module.js';
import { API_MODULES } from './api-modules.js';
import { controllerReadiness } from './controller-readiness.provider.js';
import { readinessAudience } from './readiness-audience.provider.js';
import { SHARED_MODULES } from './shared-modules.js';
import { OwnEventsTimelineModule } from '../timeline/own-events-timeline.module.js';

/** ROLE=all (the default): both roles in one process, as `npm start` runs it. */
@Module({
  imports: [
    ...SHARED_MODULES,
    ControllerModule,
    ApiserverAuditLossesModule,
    AdmissionRegistrationModule,
    OwnEventsTimelineModule,
    ...API_MODULES,
    HealthModule.with({ imports: [ControllerModule], providers: [controllerReadiness, readinessAudience] }),
  ],
})
export class AllRoleModule {}
