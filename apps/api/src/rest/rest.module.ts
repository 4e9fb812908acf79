import { Module, type MiddlewareConsumer, type NestModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ApiServerRelay } from './api-server-relay.js';
import { ChangeAuditMiddleware } from './change-audit.middleware.js';
import { DiscoveryController } from './discovery.controller.js';
import { NginxRestController } from './nginx-rest.controller.js';
import { NginxReads } from './nginx-reads.js';
import { NginxWrites } from './nginx-writes.js';
import { StatusExceptionFilter } from '../http/status-exception.filter.js';
import { RelayedReadLane } from './relayed-read-lane.js';
import { RelayLimits, WatchSlots } from './relay-limits.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { RevisionWrites } from '../controlplane/revision-writes.js';
import { RevisionsController } from '../controlplane/revisions.controller.js';
import { CanaryController } from '../controlplane/canary.controller.js';

/**
 * The Kubernetes-style REST surface: discovery and `/apis/mycompany.com/v1/…nginxes…`; errors as `Status`; every
 * write attempt recorded in the change audit (ChangeAuditMiddleware runs before the guards), the control plane's
 * rollbacks included, whose writes NginxWrites makes as RevisionWrites.
 */
@Module({
  controllers: [DiscoveryController, NginxRestController],
  providers: [
    ApiServerRelay,
    RelayedReadLane,
    NginxReads,
    NginxWrites,
    { provide: RevisionWrites, useExisting: NginxWrites },
    {
      provide: RelayLimits,
      inject: [appConfig.KEY],
      useFactory: (config: AppConfig): RelayLimits => config.limits,
    },
    // One count of open watches per token for the whole process.
    {
      provide: WatchSlots,
      inject: [RelayLimits],
      useFactory: (limits: RelayLimits) => new WatchSlots(limits.watchesPerToken),
    },
    { provide: APP_FILTER, useClass: StatusExceptionFilter },
  ],
  exports: [ApiServerRelay, NginxReads, RevisionWrites, RelayedReadLane, WatchSlots],
})
export class RestModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer
      .apply(ChangeAuditMiddleware)
      .forRoutes(NginxRestController, RevisionsController, CanaryController);
  }
}
