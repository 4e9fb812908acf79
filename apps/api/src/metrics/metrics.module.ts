import { Global, Module } from '@nestjs/common';
import { Registry, collectDefaultMetrics } from 'prom-client';

/** The process's one Prometheus registry, served at /metrics; every module registers its collectors here. */
@Global()
@Module({
  providers: [
    {
      provide: Registry,
      useFactory: () => {
        const registry = new Registry();
        collectDefaultMetrics({ register: registry });
        return registry;
      },
    },
  ],
  exports: [Registry],
})
export class MetricsModule {}
