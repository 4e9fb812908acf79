import { ConfigModule } from '@nestjs/config';
import { AuditStoreModule } from '../audit/audit-store.module.js';
import { appConfig } from '../config/app-config.js';
import { KubeModule } from '../kube/kube.module.js';
import { MetricsModule } from '../metrics/metrics.module.js';
import { TracingModule } from '../tracing/tracing.module.js';

/**
 * What every role stands on: its settings, one metrics registry, tracing when configured, one Kubernetes client
 * and the audit trail.
 */
export const SHARED_MODULES = [
  ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [appConfig] }),
  MetricsModule,
  TracingModule,
  KubeModule,
  AuditStoreModule,
];
