import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import type { Request, Response } from 'express';
import { Public, Unmetered } from '../auth/auth.decorators.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { clientCertificate } from '../transport/client-certificate.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';
import { StatusException } from '../http/kube-status.js';
import { BODY_TYPES, mediaType, parseBody, readRawBody } from '../http/request-body.js';
import { eventListError, parseEventList } from './audit-event.js';
import { KubeAuditIngest } from './kube-audit-ingest.service.js';

/**
 * Largest batch taken: kube-apiserver sends at most --audit-webhook-batch-max-size events (400 by default) a
 * batch, each an Nginx write with both bodies (a few KiB; at most the API server's 3 MiB each in theory).
 */
export const MAX_BATCH_BYTES = 32 * 1024 * 1024;
/**
 * Batches read and stored at once; more are answered 429 at once (kube-apiserver sends them again after its
 * backoff), unread: a flood is bounded. kube-apiserver sends batches concurrently (each in its own goroutine, up to
 * --audit-webhook-batch-throttle-qps a second, 10 by default, bursts of 15), and a batch takes milliseconds (at
 * most 2 s when it waits for the informer), so a burst fits. A batch is not made to wait for a turn: over HTTP/2
 * its unread body would hold the connection's flow-control window that the batches being read need.
 */
export const MAX_BATCHES_IN_FLIGHT = 16;

/**
 * `POST /controlplane/v1/audit/webhook`: kube-apiserver's audit webhook backend (batch mode) posts its
 * audit.k8s.io/v1 EventLists here. Only a client with a certificate from the configured client CA and an allowed
 * common name is heard (401 without a certificate, 403 for another); no token is needed or taken, and no request
 * budget spent (the concurrency bound stands in). A batch is stored whole or answered with a code kube-apiserver
 * retries (429, 503); its items that are no audit events are answered 400 once the others are stored (so a
 * retry stores nothing twice: records are keyed by their audit event).
 */
@Public()
@Unmetered()
@Controller(`${CONTROLPLANE_API_VERSION}/audit`)
export class AuditWebhookController {
  private inFlight = 0;

  constructor(
    @Inject(KubeAuditIngest) private readonly ingest: KubeAuditIngest,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  @Post('webhook')
  @HttpCode(200)
  async receive(@Req() req: Request, @Res() res: Response): Promise<void> {
    this.authenticate(req);
    if (this.inFlight >= MAX_BATCHES_IN_FLIGHT)
      throw new StatusException(
        429,
        'too many audit batches at once; retry',
        { retryAfterSeconds: 1 },
        { 'Retry-After': '1' },
      );
    this.inFlight++;
    try {
      const document = parseBody(await readRawBody(req, MAX_BATCH_BYTES), mediaType(req), [BODY_TYPES.json]);
      const problem = eventListError(document);
      if (problem) throw new StatusException(400, `not an audit.k8s.io/v1 EventList: ${problem}`);
      const { events, invalid } = parseEventList(document as { items: unknown[] });
      const outcome = await this.ingest.ingest(events, 'audit-webhook');
      if (outcome.kind === 'retry-later') {
        const seconds = outcome.retryAfterSeconds;
        throw new StatusException(
          outcome.code,
          `${outcome.why}; retry`,
          { retryAfterSeconds: seconds },
          { 'Retry-After': String(seconds) },
        );
      }
      if (invalid.length > 0) {
        this.ingest.invalid(invalid.length, 'audit-webhook');
        const shown = invalid.slice(0, 20).map((item) => `items[${item.index}]: ${item.reason}`);
        throw new StatusException(
          400,
          `${invalid.length} of ${invalid.length + events.length} items are no audit events (the others were stored): ${shown.join('; ')}`,
        );
      }
      res.status(200).json({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        message: `stored ${outcome.changes} change records from ${events.length} events`,
        code: 200,
      });
    } finally {
      this.inFlight--;
    }
  }

  private authenticate(req: Request): void {
    const allowed = this.config.auditWebhook;
    if (!allowed)
      throw new StatusException(404, 'the audit webhook is not configured (AUDIT_WEBHOOK_CLIENT_CA_FILE)');
    const certificate = clientCertificate(req.socket);
    if (certificate.kind !== 'verified')
      throw new StatusException(
        401,
        certificate.kind === 'none'
          ? 'the audit webhook takes a client certificate; none was shown'
          : 'the client certificate is not signed by the audit webhook client CA',
      );
    if (!allowed.clientNames.includes(certificate.commonName))
      throw new StatusException(403, `"${certificate.commonName}" may not post audit events`);
  }
}
