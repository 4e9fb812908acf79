import { Controller, Get, HttpCode, Res } from '@nestjs/common';
import type { Response } from 'express';
import { HealthService, type Readiness } from './health.service.js';

const startedAt = Date.now();

@Controller()
export class HealthController {
  constructor(private readonly health: HealthService) {}

  /** Liveness: the process is up and serving. Dependencies do not make it fail. */
  @Get('healthz')
  @HttpCode(200)
  healthz() {
    return { status: 'ok', uptimeSeconds: Math.round((Date.now() - startedAt) / 1000) };
  }

  /** Readiness: 200 when the API server and the audit database answer, 503 with the reasons otherwise. */
  @Get('readyz')
  async readyz(@Res({ passthrough: true }) response: Response): Promise<Readiness> {
    const readiness = await this.health.readiness();
    response.status(readiness.ready ? 200 : 503);
    return readiness;
  }
}
