// First: V8 flags take effect for what is allocated after them.
import './memory-mode.js';
import 'reflect-metadata';
import { ConfigError, loadAppConfig } from './config/app-config.js';
import { CrdInstallError } from './controller/crd-installer.js';

/**
 * Reads the settings, then loads only the modules of this process's ROLE (roles/): a controller never loads the
 * REST API, the UI or the live gateway, and an API never loads the reconciler.
 */
async function bootstrap(): Promise<void> {
  const config = loadAppConfig();
  const role =
    config.role === 'controller'
      ? await import('./roles/controller.main.js')
      : await import('./roles/api.main.js');
  await role.start(config);
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
