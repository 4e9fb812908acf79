import { Logger, type INestApplication } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '../config/app-config.js';
import { hostPolicy } from '../http/host-check.js';
import { gateRequests } from '../http/request-gate.js';
import { sendSecurityHeaders } from '../http/security-headers.js';
import { traceRequests } from '../tracing/server-spans.js';
import { applyConnectionLimits } from '../transport/connection-limits.js';
import { handleRequestsFirst, type FirstHandler } from '../transport/first-handler.js';
import { serveTlsOnSamePort } from '../transport/tls-on-same-port.js';

/**
 * Puts an initialised app's HTTP server behind what every role's port has (connection limits, the host and
 * plain-HTTP gate, security headers, TLS on the same port when configured), with `first` answering ahead of
 * Express where given, and listens. Resolves to the server and the port it listens on.
 */
export async function listen(
  app: INestApplication,
  config: AppConfig,
  first?: FirstHandler,
): Promise<{ server: Server; port: number }> {
  const server = app.getHttpServer() as Server;
  applyConnectionLimits(server);
  if (first) handleRequestsFirst(server, first);
  gateRequests(server, {
    hosts: hostPolicy(config.allowedHosts, config.host),
    plainHttp: config.plainHttp,
    tlsConfigured: config.tls !== undefined,
  });
  // Prepended after the gate wraps the listeners, so the gate's own refusals carry the headers too.
  sendSecurityHeaders(server);
  if (config.tls)
    serveTlsOnSamePort(server, {
      cert: readFileSync(config.tls.certFile),
      key: readFileSync(config.tls.keyFile),
      // Asked for, never required: only the audit webhook checks one (transport/client-certificate.ts).
      ...(config.auditWebhook && config.role !== 'controller'
        ? { requestCert: true, rejectUnauthorized: false, ca: readFileSync(config.auditWebhook.clientCaFile) }
        : {}),
    });
  // Last, so every listener above (the gate, the first handler, Express) runs in the request's span.
  if (config.otlpEndpoint !== undefined) traceRequests(server);
  await app.listen(config.port, config.host);
  return { server, port: (server.address() as AddressInfo).port };
}

/** The line the process logs once it listens (tests and scripts wait for it). */
export function logListening(config: AppConfig, port: number, serving: string): void {
  const kube = config.kubeconfigPath ?? 'client-node defaults (in-cluster or ~/.kube/config)';
  Logger.log(
    `listening on http://${config.host}:${port} (role: ${config.role}, kubeconfig: ${kube}, ${serving}` +
      `${config.tls ? `, TLS on the same port with ${config.tls.certFile}` : ''})`,
    'Main',
  );
}
