import { Global, Inject, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { startTracingSdk, type TracingSdk } from './tracing-sdk.js';

/**
 * The OpenTelemetry SDK of the process, registered when OTEL_EXPORTER_OTLP_ENDPOINT is set (before any request
 * is served or reconciled), and shut down with the app so the last batched spans are exported.
 */
@Injectable()
export class Tracing implements OnApplicationShutdown {
  private readonly sdk: TracingSdk | undefined;

  constructor(@Inject(appConfig.KEY) config: AppConfig) {
    this.sdk = config.otlpEndpoint === undefined ? undefined : startTracingSdk();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.sdk?.shutdown();
  }
}

@Global()
@Module({ providers: [Tracing], exports: [Tracing] })
export class TracingModule {}
