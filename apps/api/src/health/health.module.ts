import { Module, type DynamicModule, type ModuleMetadata, type Provider } from '@nestjs/common';
import { HealthController } from './health.controller.js';
import { HealthService } from './health.service.js';

/**
 * /healthz, /readyz and /metrics, in every role. Each role passes what its readiness is made of: the controller's
 * part (ControllerReadiness) where it reconciles, who may read the details (ReadinessAudience) where it
 * authenticates, and the modules those come from.
 */
@Module({})
export class HealthModule {
  static with(parts: { imports?: ModuleMetadata['imports']; providers?: Provider[] }): DynamicModule {
    return {
      module: HealthModule,
      imports: parts.imports ?? [],
      controllers: [HealthController],
      providers: [HealthService, ...(parts.providers ?? [])],
      exports: [HealthService],
    };
  }
}
