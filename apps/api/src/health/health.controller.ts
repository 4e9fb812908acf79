import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import { Registry } from 'prom-client';
import { Public, Unmetered } from '../auth/auth.decorators.js';
import { HealthService, type Readiness } from './health.service.js';

const startedAt = Date.now();

/** Open without a token: probes and scrapers do not carry one. */
@Public()
@Controller()
export class HealthController {
  constructor(
    private readonly health: HealthService,
    @Inject(Registry) private readonly registry: Registry,
  ) {}

  /** Prometheus metrics: workqueue, reconciles, pods created and deleted, informers, leadership, process. */
  @Get('metrics')
  async metrics(@Res() response: Response): Promise<void> {
    response.type(this.registry.contentType).send(await this.registry.metrics());
  }

  /** Liveness: the process is up and serving. Dependencies do not make it fail. Costs nothing: unmetered. */
  @Get('healthz')
  @Unmetered()
  @HttpCode(200)
  healthz() {
    return { status: 'ok', uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) };
  }

  /**
   * Readiness: 200 when the API server and the audit database answer and the controller's caches are synced,
   * 503 with the reasons otherwise. Says whether this instance leads.
   */
  @Get('readyz')
  async readyz(@Res({ passthrough: true }) response: Response): Promise<Readiness> {
    const readiness = await this.health.readiness();
    response.status(readiness.ready ? 200 : 503);
    return readiness;
  }
}
