import { Module } from '@nestjs/common';
import { HealthModule } from '../health/health.module.js';
import { API_MODULES } from './api-modules.js';
import { readinessAudience } from './readiness-audience.provider.js';
import { SHARED_MODULES } from './shared-modules.js';

/**
 * ROLE=api: REST, UI, live gateway, sign-in, audit reads, the audit and admission webhooks and the timeline's
 * evidence. It never reconciles and never writes pods; its sessions live in the audit database, so any number of
 * replicas serve behind a load balancer without affinity.
 */
@Module({
  imports: [...SHARED_MODULES, ...API_MODULES, HealthModule.with({ providers: [readinessAudience] })],
})
export class ApiRoleModule {}
