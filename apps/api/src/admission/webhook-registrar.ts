import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import { Backoff, isApiError, KubeClient, sleep } from '@ngx/kube-runtime';
import { appConfig, type AppConfig } from '../config/app-config.js';
import {
  webhookConfiguration,
  webhookConfigurationName,
  type WebhookEndpoint,
} from './webhook-configuration.js';

const FIELD_MANAGER = 'nginx-control-plane';
const CONFIGURATIONS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

/** Host kube-apiserver dials for an app listening on `host` (it runs on the same host in the local cluster). */
function dialledHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '' || host === 'localhost') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/**
 * Registers the Nginx admission webhook with kube-apiserver once the process listens (ROLE=all: itself; ROLE=controller:
 * the API's Service): a server-side apply of the ValidatingWebhookConfiguration (webhook-configuration.ts), so every
 * replica and every restart applies the same object and nothing changes when it is already there; no leadership is
 * needed. When kube-apiserver cannot be
 * reached it retries with backoff; when it refuses (RBAC), it says so and the app runs on without the webhook (the
 * controller still flags bad configs InvalidConfig). The configuration is left in place at shutdown: with
 * `failurePolicy: Ignore`, Nginx writes pass while no replica answers, and another replica may still be serving.
 */
@Injectable()
export class WebhookRegistrar implements OnApplicationShutdown {
  private readonly logger = new Logger(WebhookRegistrar.name);
  private readonly stopping = new AbortController();

  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  /** Starts the registration for an app listening on `port`; resolves at once (it goes on in the background). */
  start(port: number): void {
    const settings = this.config.admissionWebhook;
    if (!settings) {
      this.logger.log(
        'admission webhook not registered here (ADMISSION_WEBHOOK=false, no TLS or CA, or ROLE=controller without ADMISSION_WEBHOOK_SERVICE)',
      );
      return;
    }
    const endpoint: WebhookEndpoint = settings.service
      ? { service: settings.service }
      : { url: `https://${dialledHost(this.config.host)}:${port}` };
    const body = webhookConfiguration({
      endpoint,
      caBundlePem: readFileSync(settings.caFile, 'utf8'),
      namespaces: this.config.watchNamespaces,
    });
    void this.applyUntilDone(body);
  }

  onApplicationShutdown(): void {
    this.stopping.abort();
  }

  private async applyUntilDone(body: ReturnType<typeof webhookConfiguration>): Promise<void> {
    const name = webhookConfigurationName(this.config.watchNamespaces);
    const backoff = new Backoff(1000, 30_000);
    const { signal } = this.stopping;
    while (!signal.aborted) {
      try {
        await this.client.request({
          method: 'PATCH',
          path: `${CONFIGURATIONS}/${name}`,
          query: { fieldManager: FIELD_MANAGER, force: true },
          contentType: 'application/apply-patch+yaml',
          body,
          signal,
        });
        this.logger.log(`admission webhook ${name} registered`);
        return;
      } catch (error) {
        if (signal.aborted) return;
        if (isApiError(error) && error.code < 500 && error.code !== 429) {
          this.logger.error(
            `could not register the admission webhook ${name} (${error.code} ${error.reason ?? ''}: ${error.message}); ` +
              'Nginx writes straight to kube-apiserver are not judged until it is (grant patch on ' +
              `validatingwebhookconfigurations "${name}", or set ADMISSION_WEBHOOK=false)`,
          );
          return;
        }
        this.logger.warn(
          `cannot register the admission webhook ${name} yet (${(error as Error).message}); retrying`,
        );
      }
      await sleep(backoff.next(), undefined, signal).catch(() => {});
    }
  }
}
