import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { Backoff, isApiError, KubeClient, sleep } from '@ngx/kube-runtime';
import { NGINX_CRD_NAME, nginxCrd } from '@ngx/nginx-api';
import { appConfig, type AppConfig } from '../config/app-config.js';

const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${NGINX_CRD_NAME}`;
const FIELD_MANAGER = 'nginx-control-plane';
const ESTABLISH_TIMEOUT_MS = 30_000;

interface CrdStatus {
  status?: { conditions?: { type: string; status: string }[] };
}

/** The API server answered and refused the CRD (e.g. 403): starting anyway would only hide the problem. */
export class CrdInstallError extends Error {
  override name = 'CrdInstallError';
}

/**
 * Installs or upgrades the Nginx CRD at start (server-side apply, so fields others manage are left alone) and
 * waits until the API server serves it. With IMAGE_ALLOWLIST its spec.image carries the allow-list's CEL rules,
 * and a start without one removes them again (they are this field manager's). Turned off with INSTALL_CRD=false
 * where an admin applies deploy/crd.
 * When the API server refuses, the app does not start; when it cannot be reached, the app starts anyway (its
 * readiness says why) and the installation is retried with backoff until it succeeds.
 */
@Injectable()
export class CrdInstaller implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(CrdInstaller.name);
  private readonly stopping = new AbortController();

  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.kube.installCrd) {
      this.logger.log(
        `INSTALL_CRD=false: expecting ${NGINX_CRD_NAME} to be applied by an admin (deploy/crd)`,
      );
      const allowlist = this.config.imageAllowlist;
      if (allowlist)
        this.logger.log(
          'IMAGE_ALLOWLIST is checked on writes through this API; for the API server to refuse other images too, ' +
            `apply the CRD from \`npm run crd:generate -- --image-allowlist=${allowlist.prefixes.join(',')}\``,
        );
      return;
    }
    try {
      await this.install();
    } catch (error) {
      if (error instanceof CrdInstallError) throw error;
      this.logger.warn(
        `cannot reach the API server to install ${NGINX_CRD_NAME} (${(error as Error).message}); retrying`,
      );
      void this.retryInBackground();
    }
  }

  onApplicationShutdown(): void {
    this.stopping.abort();
  }

  private async install(): Promise<void> {
    await this.apply();
    await this.waitEstablished();
    const allowlist = this.config.imageAllowlist;
    this.logger.log(
      `${NGINX_CRD_NAME} installed and established` +
        (allowlist ? `, its spec.image limited to ${allowlist.prefixes.join(', ')}` : ''),
    );
  }

  private async retryInBackground(): Promise<void> {
    const backoff = new Backoff(1000, 30_000);
    const { signal } = this.stopping;
    while (!signal.aborted) {
      await sleep(backoff.next(), undefined, signal).catch(() => {});
      if (signal.aborted) return;
      try {
        await this.install();
        return;
      } catch (error) {
        if (error instanceof CrdInstallError) {
          this.logger.error(error.message);
          return;
        }
      }
    }
  }

  private async apply(): Promise<void> {
    try {
      await this.client.request({
        method: 'PATCH',
        path: CRD_PATH,
        query: { fieldManager: FIELD_MANAGER, force: true },
        contentType: 'application/apply-patch+yaml',
        body: nginxCrd({ imageAllowlist: this.config.imageAllowlist }),
        signal: this.stopping.signal,
      });
    } catch (error) {
      if (!isApiError(error)) throw error; // not reached: the caller retries
      throw new CrdInstallError(
        `could not install ${NGINX_CRD_NAME} (${error.code} ${error.reason ?? ''}: ${error.message}); ` +
          'apply deploy/crd as an admin and start with INSTALL_CRD=false',
      );
    }
  }

  private async waitEstablished(): Promise<void> {
    const deadline = Date.now() + ESTABLISH_TIMEOUT_MS;
    for (;;) {
      const crd = await this.client.request<CrdStatus>({ path: CRD_PATH, signal: this.stopping.signal });
      if (crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
      if (Date.now() > deadline)
        throw new CrdInstallError(`${NGINX_CRD_NAME} was not established within 30 s`);
      await sleep(200, undefined, this.stopping.signal);
    }
  }
}
