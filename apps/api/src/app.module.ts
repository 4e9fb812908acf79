import { Module } from '@nestjs/common';
import { AdmissionModule } from './admission/admission.module.js';
import { ConfigModule } from '@nestjs/config';
import { AuditModule } from './audit/audit.module.js';
import { AuthModule } from './auth/auth.module.js';
import { appConfig } from './config/app-config.js';
import { ControllerModule } from './controller/controller.module.js';
import { ControlPlaneModule } from './controlplane/controlplane.module.js';
import { HealthModule } from './health/health.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { KubeModule } from './kube/kube.module.js';
import { KubeAuditModule } from './kube-audit/kube-audit.module.js';
import { TimelineModule } from './timeline/timeline.module.js';
import { LiveModule } from './live/live.module.js';
import { RestModule } from './rest/rest.module.js';

@Module({
  imports: [
    ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, load: [appConfig] }),
    MetricsModule,
    KubeModule,
    AuditModule,
    AuthModule,
    HealthModule,
    ControllerModule,
    RestModule,
    ControlPlaneModule.withWrites(RestModule),
    LiveModule,
    KubeAuditModule,
    TimelineModule,
    AdmissionModule,
  ],
})
export class AppModule {}
