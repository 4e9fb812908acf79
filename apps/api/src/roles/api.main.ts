import { NestFactory } from '@nestjs/core';
import { AdmissionRegistrationModule } from '../admission/admission-registration.module.js';
import { WebhookRegistrar } from '../admission/webhook-registrar.js';
import { PolicySource } from '../auth/policy-source.js';
import { checkTokenSettings } from '../auth/token-store.js';
import type { AppConfig } from '../config/app-config.js';
import { HealthService } from '../health/health.service.js';
import { LiveGateway } from '../live/live.gateway.js';
import { AppLogger } from '../logging/app-logger.js';
import { serveOpenApi } from '../openapi/serve-openapi.js';
import { RelayedReadLane } from '../rest/relayed-read-lane.js';
import { mountWeb } from '../web/mount-web.js';
import { listen, logListening } from './listen.js';
import { countInFlight, stopGracefully } from './stop-gracefully.js';

/** Starts ROLE=api, or ROLE=all (the API and the controller in one process): REST, UI and live on one port. */
export async function start(config: AppConfig): Promise<void> {
  // Checked here first so a bad setting ends the process with one clear line instead of a DI stack trace.
  checkTokenSettings(config.auth);
  new PolicySource(config.auth.policyFile); // a bad policy file is a bad setting too
  const module =
    config.role === 'all'
      ? (await import('./all-role.module.js')).AllRoleModule
      : (await import('./api-role.module.js')).ApiRoleModule;
  // No body parser: the REST layer reads raw bodies itself, with its size limit and Kubernetes' media types.
  const app = await NestFactory.create(module, {
    logger: new AppLogger(config.logFormat),
    bodyParser: false,
  });
  if (config.corsOrigins.length > 0) app.enableCors({ origin: config.corsOrigins });
  serveOpenApi(app);
  await mountWeb(app, config);
  // Initialised here rather than by listen() so that socket.io is attached before the gate wraps the listeners.
  await app.init();
  // Plain relayed reads of Nginxes skip Express and Nest; the gate and the security headers still come first.
  const { server, port } = await listen(app, config, app.get(RelayedReadLane).handle);
  const health = app.get(HealthService);
  const live = app.get(LiveGateway);
  stopGracefully(app, server, countInFlight(server), {
    beforeDrain: () => {
      health.startStopping();
      live.closeAll();
    },
  });
  // After listen: kube-apiserver may call the webhook as soon as it is registered, at the port now known.
  if (config.role === 'all') app.select(AdmissionRegistrationModule).get(WebhookRegistrar).start(port);
  logListening(config, port, `web: ${config.web.mode}`);
}
