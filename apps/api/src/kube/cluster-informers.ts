import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type { V1Pod } from '@kubernetes/client-node';
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
import { stripManagedFieldsKeepingLastWriter } from './last-writer.js';
import { Registry } from 'prom-client';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { isWatched } from '../config/watched-namespaces.js';
import { prometheusReflectorObserver } from '../metrics/runtime-metrics.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { PODS_BY_NGINX, podsByNginx } from './pod-index.js';

export type NginxObject = Nginx & KubeObject;
export type PodObject = V1Pod & KubeObject;
/**
 * The informers every role shares: one list/watch of all Nginx objects and one of the pods carrying our label,
 * read by the controller, the REST layer's cached reads, the live gateway and the timeline. (What only the
 * controller reads is in ControllerInformers.) They run from bootstrap until the app shuts down; they stop in
 * beforeApplicationShutdown, after the controller has drained in onModuleDestroy.
 */
@Injectable()
export class ClusterInformers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly nginxes: SharedInformer<NginxObject>;
  readonly pods: SharedInformer<PodObject>;
  private readonly factory = new InformerFactory();
  private readonly stopping = new AbortController();

  /** The namespaces watched, or undefined for the whole cluster (WATCH_NAMESPACE). */
  readonly namespaces: readonly string[] | undefined;

  constructor(
    @Inject(KubeClient) client: KubeClient,
    @Inject(Registry) registry: Registry,
    @Inject(appConfig.KEY) config: AppConfig,
  ) {
    const logger = nestRuntimeLogger(new Logger('Informers'));
    const namespaces = (this.namespaces = config.watchNamespaces);
    this.nginxes = this.factory.informerFor<NginxObject>({
      client,
      resource: { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL },
      namespaces,
      kind: NGINX_KIND,
      transform: stripManagedFieldsKeepingLastWriter,
      logger,
      observer: prometheusReflectorObserver(registry, 'nginxes'),
    });
    this.pods = this.factory.informerFor<PodObject>({
      client,
      resource: { group: '', version: 'v1', plural: 'pods' },
      namespaces,
      kind: 'Pod',
      labelSelector: LABEL_NGINX,
      transform: stripManagedFields,
      indexers: {
        [PODS_BY_NGINX]: podsByNginx,
      },
      logger,
      observer: prometheusReflectorObserver(registry, 'pods'),
    });
  }

  onApplicationBootstrap(): void {
    this.factory.start(this.stopping.signal);
  }

  /** Whether the caches hold `namespace` (undefined: every namespace at once). */
  watches(namespace: string | undefined): boolean {
    return isWatched(this.namespaces, namespace);
  }

  hasSynced(): boolean {
    return this.nginxes.hasSynced() && this.pods.hasSynced();
  }

  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    return this.factory.waitForCacheSync(signal);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.factory.stopped();
  }
}
