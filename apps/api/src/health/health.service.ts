import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { KubeClient } from '@ngx/kube-runtime';
import { PrismaService } from '../audit/prisma.service.js';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { ControllerReadiness } from './readiness-ports.js';
import type { CheckResult, Readiness } from './readiness.js';

const CHECK_TIMEOUT_MS = 3000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Reachability of what the process depends on: the Kubernetes API server and the audit database; and its own
 * state: the controller's caches and leadership (roles that reconcile), the shared caches (ROLE=api), and whether
 * it has been told to stop (then it is not ready, so load balancers take it out while it finishes what it holds).
 */
@Injectable()
export class HealthService {
  private readonly logger = new Logger('Health');
  /** The last failure logged per check ('' when it last passed), so probes every few seconds log changes only. */
  private readonly lastFailure = new Map<string, string>();
  private stopping = false;

  constructor(
    @Inject(KubeClient) private readonly kube: KubeClient,
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
    @Inject(appConfig.KEY) private readonly config: AppConfig,
    @Optional() @Inject(ControllerReadiness) private readonly controller?: ControllerReadiness,
  ) {}

  /** From now on /readyz answers 503: the process is stopping. */
  startStopping(): void {
    this.stopping = true;
  }

  async readiness(): Promise<Readiness> {
    const [kubernetes, database] = await Promise.all([this.checkKubernetes(), this.checkDatabase()]);
    const controller = this.controller?.readiness();
    const synced = this.informers.hasSynced();
    const caches = controller
      ? undefined
      : { ok: synced, detail: synced ? 'caches synced' : 'caches syncing' };
    const shutdown = this.stopping
      ? { ok: false, detail: 'stopping: finishing the requests it holds, taking no new ones' }
      : undefined;
    this.logChange('the Kubernetes API server', kubernetes, `at ${kubernetes.server}`);
    this.logChange('the audit database', database, `(${database.provider})`);
    return {
      ready: kubernetes.ok && database.ok && (controller ?? caches)!.ok && !shutdown,
      role: this.config.role,
      checks: {
        kubernetes,
        database,
        ...(caches ? { caches } : {}),
        ...(controller ? { controller } : {}),
        ...(shutdown ? { shutdown } : {}),
      },
    };
  }

  /** Public /readyz answers hide why a check fails (publicReadiness): the log says it, once per change. */
  private logChange(what: string, check: CheckResult, where: string) {
    const failure = check.ok ? '' : check.detail;
    const last = this.lastFailure.get(what);
    if (failure === (last ?? '')) return;
    this.lastFailure.set(what, failure);
    if (failure) this.logger.warn(`readiness: ${what} ${where} does not answer: ${failure}`);
    else if (last) this.logger.log(`readiness: ${what} ${where} answers again`);
  }

  private async checkKubernetes(): Promise<CheckResult & { server: string }> {
    const { server } = this.kube;
    try {
      // Exempt from the QPS limit, as probes must not wait behind the controller's writes; the request's own
      // timeout (a little later than the check's) ends it when the check gave up on it.
      const answer = this.kube.request<{ gitVersion: string }>({
        path: '/version',
        priority: 'exempt',
        timeoutMs: CHECK_TIMEOUT_MS + 1000,
      });
      const version = await withTimeout(answer, 'the Kubernetes API server');
      return { ok: true, server, detail: `Kubernetes ${version.gitVersion}` };
    } catch (error) {
      return { ok: false, server, detail: (error as Error).message };
    }
  }

  private async checkDatabase(): Promise<CheckResult & { provider: string }> {
    const provider = this.prisma.provider;
    try {
      await withTimeout(this.prisma.ping(), 'the audit database');
      return { ok: true, provider, detail: 'reachable' };
    } catch (error) {
      return { ok: false, provider, detail: (error as Error).message };
    }
  }
}
