import { Module } from '@nestjs/common';
import { ConfigModule } from '@nestjs/config';
import { AuditModule } from './audit/audit.module.js';
import { appConfig } from './config/app-config.js';
import { ControllerModule } from './controller/controller.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './health/metrics.module.js';
import { KubeModule } from './kube/kube.module.js';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [appConfig] }),
    MetricsModule,
    KubeModule,
    AuditModule,
    HealthModule,
    ControllerModule,
  ],
})
export class AppModule {}
