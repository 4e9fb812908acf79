import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { V1Pod, V1ResourceQuota } from '@kubernetes/client-node';
import {
  InformerFactory,
  KubeClient,
  stripManagedFields,
  type KubeObject,
  type SharedInformer,
} from '@ngx/kube-runtime';
import {
  LABEL_NGINX,
  NGINX_GROUP,
  NGINX_KIND,
  NGINX_PLURAL,
  NGINX_VERSION,
  type Nginx,
} from '@ngx/nginx-api';
import { Registry } from 'prom-client';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { prometheusReflectorObserver } from '../metrics/runtime-metrics.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { PODS_BY_NGINX, podsByNginx } from './pod-index.js';

export type NginxObject = Nginx & KubeObject;
export type PodObject = V1Pod & KubeObject;
export type QuotaObject = V1ResourceQuota & KubeObject;

/**
 * The process's informers, shared by the controller, the REST layer's cached reads and the live gateway: one
 * list/watch of all Nginx objects, one of the pods carrying our label, and one of ResourceQuotas (a raised
 * quota wakes the Nginxes it refused). They run from bootstrap until the
 * app shuts down; they stop in beforeApplicationShutdown, after the controller has drained in onModuleDestroy.
 */
@Injectable()
export class ClusterInformers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly nginxes: SharedInformer<NginxObject>;
  readonly pods: SharedInformer<PodObject>;
  readonly quotas: SharedInformer<QuotaObject>;
  private readonly factory = new InformerFactory();
  private readonly stopping = new AbortController();

  /** The one namespace watched, or undefined for the whole cluster (WATCH_NAMESPACE). */
  readonly namespace: string | undefined;

  constructor(
    @Inject(KubeClient) client: KubeClient,
    @Inject(Registry) registry: Registry,
    @Inject(appConfig.KEY) config: AppConfig,
  ) {
    const logger = nestRuntimeLogger(new Logger('Informers'));
    const namespace = (this.namespace = config.watchNamespace);
    this.nginxes = this.factory.informerFor<NginxObject>({
      client,
      resource: { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL, namespace },
      kind: NGINX_KIND,
      transform: stripManagedFields,
      logger,
      observer: prometheusReflectorObserver(registry, 'nginxes'),
    });
    this.pods = this.factory.informerFor<PodObject>({
      client,
      resource: { group: '', version: 'v1', plural: 'pods', namespace },
      kind: 'Pod',
      labelSelector: LABEL_NGINX,
      transform: stripManagedFields,
      indexers: {
        [PODS_BY_NGINX]: podsByNginx,
      },
      logger,
      observer: prometheusReflectorObserver(registry, 'pods'),
    });
    this.quotas = this.factory.informerFor<QuotaObject>({
      client,
      resource: { group: '', version: 'v1', plural: 'resourcequotas', namespace },
      kind: 'ResourceQuota',
      transform: stripManagedFields,
      logger,
      observer: prometheusReflectorObserver(registry, 'resourcequotas'),
    });
  }

  onApplicationBootstrap(): void {
    this.factory.start(this.stopping.signal);
  }

  /** Whether the caches hold `namespace` (undefined: every namespace at once). */
  watches(namespace: string | undefined): boolean {
    return this.namespace === undefined || namespace === this.namespace;
  }

  hasSynced(): boolean {
    return this.nginxes.hasSynced() && this.pods.hasSynced() && this.quotas.hasSynced();
  }

  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    return this.factory.waitForCacheSync(signal);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.factory.stopped();
  }
}
