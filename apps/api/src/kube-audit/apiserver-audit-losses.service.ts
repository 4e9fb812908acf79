import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type BeforeApplicationShutdown,
} from '@nestjs/common';
import { errorMessage, KubeClient } from '@ngx/kube-runtime';
import { AuditTrail } from '../audit/audit-trail.service.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { NginxControllerService } from '../controller/nginx-controller.service.js';
import { AuditLossCounter, webhookAuditLosses } from './apiserver-audit-losses.js';

/** Longest a reading of kube-apiserver's /metrics may take. */
const READ_TIMEOUT_MS = 10_000;

/**
 * Watches kube-apiserver's count of audit events it gave up delivering to the webhook (after its retries, or
 * beyond its buffer) and records each increase as a gap in every timeline: those events, and who made the writes
 * they describe, are lost for good (the informer still records the writes themselves, actor unknown). Only the
 * leading instance reads it, so replicas do not record the same loss twice. Needs `get` on the `/metrics`
 * non-resource URL; without it, it says so once and records nothing.
 */
@Injectable()
export class ApiserverAuditLosses implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(ApiserverAuditLosses.name);
  private readonly counter = new AuditLossCounter();
  private timer?: NodeJS.Timeout;
  private warned = false;

  constructor(
    @Inject(AuditTrail) private readonly trail: AuditTrail,
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(NginxControllerService) private readonly controller: NginxControllerService,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.config.audit.enabled) return;
    this.timer = setInterval(() => void this.read(), this.config.audit.apiserverLossPollMs);
    this.timer.unref();
    void this.read();
  }

  beforeApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private async read(): Promise<void> {
    if (!this.controller.readiness().leader) return;
    try {
      const at = new Date();
      const gap = this.counter.observe(webhookAuditLosses(await this.metricsText()), at);
      if (gap) {
        this.logger.warn(`kube-apiserver lost ${gap.count} audit events bound for the webhook`);
        this.trail.gap(gap);
      }
    } catch (error) {
      if (this.warned) return;
      this.warned = true;
      this.logger.warn(`cannot read kube-apiserver's audit losses from /metrics: ${errorMessage(error)}`);
    }
  }

  private async metricsText(): Promise<string> {
    const signal = AbortSignal.timeout(READ_TIMEOUT_MS);
    const response = await this.client.forward({
      path: '/metrics',
      accept: 'text/plain',
      priority: 'low',
      signal,
    });
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if (response.statusCode !== 200)
      throw new Error(`GET /metrics answered ${response.statusCode}: ${text.slice(0, 200)}`);
    return text;
  }
}
