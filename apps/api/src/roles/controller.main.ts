import { NestFactory } from '@nestjs/core';
import { WebhookRegistrar } from '../admission/webhook-registrar.js';
import type { AppConfig } from '../config/app-config.js';
import { AppLogger } from '../logging/app-logger.js';
import { ControllerRoleModule } from './controller-role.module.js';
import { listen, logListening } from './listen.js';

/** Starts ROLE=controller: the reconciler, and a port serving /healthz, /readyz and /metrics only. */
export async function start(config: AppConfig): Promise<void> {
  const app = await NestFactory.create(ControllerRoleModule, {
    logger: new AppLogger(config.logFormat),
    bodyParser: false,
  });
  app.enableShutdownHooks();
  await app.init();
  const { port } = await listen(app, config);
  app.get(WebhookRegistrar).start(port);
  logListening(config, port, 'serving /healthz, /readyz and /metrics');
}
