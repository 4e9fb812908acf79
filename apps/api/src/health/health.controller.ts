import { Controller, Get, HttpCode, Inject, Optional, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Registry } from 'prom-client';
import { Public, Unmetered } from '../auth/auth.decorators.js';
import { HealthService } from './health.service.js';
import { ReadinessAudience } from './readiness-ports.js';
import { publicReadiness, type PublicReadiness, type Readiness } from './readiness.js';

const startedAt = Date.now();

/** Open without a token: probes and scrapers do not carry one. */
@Public()
@Controller()
export class HealthController {
  constructor(
    @Inject(HealthService) private readonly health: HealthService,
    @Inject(Registry) private readonly registry: Registry,
    @Optional() @Inject(ReadinessAudience) private readonly audience?: ReadinessAudience,
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
   * Readiness: 200 when the API server and the audit database answer and the caches are synced (the controller's,
   * where it runs), 503 otherwise, and 503 once the process is stopping. Says whether this instance leads. Anyone gets whether each check passed; a caller with a valid
   * token (any role) also gets the API server's URL, the versions and the errors, which the log has too.
   */
  @Get('readyz')
  async readyz(
    @Req() request: Request,
    @Res({ passthrough: true }) response: Response,
  ): Promise<Readiness | PublicReadiness> {
    const readiness = await this.health.readiness();
    response.status(readiness.ready ? 200 : 503);
    return this.audience?.mayReadDetails(request) ? readiness : publicReadiness(readiness);
  }
}
