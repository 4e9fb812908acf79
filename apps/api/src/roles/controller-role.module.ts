import { Module } from '@nestjs/common';
import { ControllerModule } from '../controller/controller.module.js';
import { HealthModule } from '../health/health.module.js';
import { CONTROLLER_MODULES } from './controller-modules.js';
import { controllerReadiness } from './controller-readiness.provider.js';
import { SHARED_MODULES } from './shared-modules.js';

/**
 * ROLE=controller: what reconciles (CONTROLLER_MODULES), with /healthz, /readyz and /metrics. Nothing that serves
 * people is loaded: no REST, UI, live gateway, sign-in or OpenAPI.
 */
@Module({
  imports: [
    ...SHARED_MODULES,
    ...CONTROLLER_MODULES,
    HealthModule.with({ imports: [ControllerModule], providers: [controllerReadiness] }),
  ],
})
export class ControllerRoleModule {}
