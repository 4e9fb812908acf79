// First: V8 flags take effect for what is allocated after them.
import './memory-mode.js';
import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AdmissionModule } from './admission/admission.module.js';
import { WebhookRegistrar } from './admission/webhook-registrar.js';
import { AppModule } from './app.module.js';
import { PolicySource } from './auth/policy-source.js';
import { checkTokenSettings } from './auth/token-store.js';
import { ConfigError, loadAppConfig } from './config/app-config.js';
import { CrdInstallError } from './controller/crd-installer.js';
import { applyConnectionLimits } from './http/connection-limits.js';
import { handleRequestsFirst } from './http/first-handler.js';
import { hostPolicy } from './http/host-check.js';
import { gateRequests } from './http/request-gate.js';
import { sendSecurityHeaders } from './http/security-headers.js';
import { serveTlsOnSamePort } from './http/tls-on-same-port.js';
import { serveOpenApi } from './openapi/serve-openapi.js';
import { RelayedReadLane } from './rest/relayed-read-lane.js';
import { AppLogger } from './logging/app-logger.js';
import { mountWeb } from './web/mount-web.js';

async function bootstrap(): Promise<void> {
  // Validated here first so a bad setting ends the process with one clear line instead of a DI stack trace.
  const config = loadAppConfig();
  checkTokenSettings(config.auth);
  new PolicySource(config.auth.policyFile); // a bad policy file is a bad setting too
  // No body parser: the REST layer reads raw bodies itself, with its size limit and Kubernetes' media types.
  const app = await NestFactory.create(AppModule, {
    logger: new AppLogger(config.logFormat),
    bodyParser: false,
  });
  app.enableShutdownHooks();
  if (config.corsOrigins.length > 0) app.enableCors({ origin: config.corsOrigins });
  serveOpenApi(app);
  await mountWeb(app, config);
  // Initialised here rather than by listen() so that socket.io is attached before the gate wraps the listeners.
  await app.init();
  const server = app.getHttpServer() as Server;
  applyConnectionLimits(server);
  // Plain relayed reads of Nginxes skip Express and Nest; the gate and the security headers still come first.
  handleRequestsFirst(server, app.get(RelayedReadLane).handle);
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
      // Asked for, never required: only the audit webhook checks one (http/client-certificate.ts).
      ...(config.auditWebhook
        ? { requestCert: true, rejectUnauthorized: false, ca: readFileSync(config.auditWebhook.clientCaFile) }
        : {}),
    });
  await app.listen(config.port, config.host);

  const { port } = server.address() as AddressInfo;
  // After listen: kube-apiserver may call the webhook as soon as it is registered, at the port now known.
  app.select(AdmissionModule).get(WebhookRegistrar).start(port);
  const kube = config.kubeconfigPath ?? 'client-node defaults (in-cluster or ~/.kube/config)';
  Logger.log(
    `listening on http://${config.host}:${port} (kubeconfig: ${kube}, web: ${config.web.mode}` +
      `${config.tls ? `, TLS on the same port with ${config.tls.certFile}` : ''})`,
    'Main',
  );
}

bootstrap().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(`configuration error: ${error.message}`);
    process.exit(2);
  }
  if (error instanceof CrdInstallError) {
    console.error(`failed to start: ${error.message}`);
    process.exit(3);
  }
  console.error('failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
