import { Module } from '@nestjs/common';
import { ControllerModule } from '../controller/controller.module.js';
import { HealthModule } from '../health/health.module.js';
import { API_MODULES } from './api-modules.js';
import { CONTROLLER_MODULES } from './controller-modules.js';
import { controllerReadiness } from './controller-readiness.provider.js';
import { readinessAudience } from './readiness-audience.provider.js';
import { SHARED_MODULES } from './shared-modules.js';

/** ROLE=all (the default): both roles in one process, as `npm start` runs it. */
@Module({
  imports: [
    ...SHARED_MODULES,
    ...CONTROLLER_MODULES,
    ...API_MODULES,
    HealthModule.with({ imports: [ControllerModule], providers: [controllerReadiness, readinessAudience] }),
  ],
})
export class AllRoleModule {}
