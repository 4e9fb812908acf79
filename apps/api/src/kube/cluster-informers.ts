import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import type {
  V1ConfigMap,
  V1ControllerRevision,
  V1EndpointSlice,
  V1Ingress,
  V1Pod,
  V1PodDisruptionBudget,
  V1ResourceQuota,
  V1Service,
} from '@kubernetes/client-node';
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
import { prometheusReflectorObserver } from '../metrics/runtime-metrics.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { BY_NGINX_LABEL, byNginxLabel, PODS_BY_NGINX, podsByNginx } from './pod-index.js';

export type NginxObject = Nginx & KubeObject;
export type PodObject = V1Pod & KubeObject;
export type QuotaObject = V1ResourceQuota & KubeObject;
export type RevisionObject = V1ControllerRevision & KubeObject;
export type ConfigMapObject = V1ConfigMap & KubeObject;
export type ServiceObject = V1Service & KubeObject;
export type BudgetObject = V1PodDisruptionBudget & KubeObject;
export type EndpointSliceObject = V1EndpointSlice & KubeObject;
export type IngressObject = V1Ingress & KubeObject;

/** The informers of what the controller makes for each Nginx besides pods, all filtered by our label. */
export interface OwnedInformers {
  revisions: SharedInformer<RevisionObject>;
  configMaps: SharedInformer<ConfigMapObject>;
  services: SharedInformer<ServiceObject>;
  budgets: SharedInformer<BudgetObject>;
  endpointSlices: SharedInformer<EndpointSliceObject>;
  ingresses: SharedInformer<IngressObject>;
}

/**
 * The process's informers, shared by the controller, the REST layer's cached reads and the live gateway: one
 * list/watch of all Nginx objects, one of the pods carrying our label, one of ResourceQuotas (a raised
 * quota wakes the Nginxes it refused), and one each of the other objects carrying our label (`owned`). They run from bootstrap until the
 * app shuts down; they stop in beforeApplicationShutdown, after the controller has drained in onModuleDestroy.
 */
@Injectable()
export class ClusterInformers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly nginxes: SharedInformer<NginxObject>;
  readonly pods: SharedInformer<PodObject>;
  readonly quotas: SharedInformer<QuotaObject>;
  readonly owned: OwnedInformers;
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
      transform: stripManagedFieldsKeepingLastWriter,
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
    const ownedInformer = <T extends KubeObject>(
      group: string,
      version: string,
      plural: string,
      kind: string,
    ) =>
      this.factory.informerFor<T>({
        client,
        resource: { group, version, plural, namespace },
        kind,
        labelSelector: LABEL_NGINX,
        transform: stripManagedFields,
        indexers: { [BY_NGINX_LABEL]: byNginxLabel },
        logger,
        observer: prometheusReflectorObserver(registry, plural),
      });
    this.owned = {
      revisions: ownedInformer<RevisionObject>('apps', 'v1', 'controllerrevisions', 'ControllerRevision'),
      configMaps: ownedInformer<ConfigMapObject>('', 'v1', 'configmaps', 'ConfigMap'),
      services: ownedInformer<ServiceObject>('', 'v1', 'services', 'Service'),
      budgets: ownedInformer<BudgetObject>('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
      endpointSlices: ownedInformer<EndpointSliceObject>(
        'discovery.k8s.io',
        'v1',
        'endpointslices',
        'EndpointSlice',
      ),
      ingresses: ownedInformer<IngressObject>('networking.k8s.io', 'v1', 'ingresses', 'Ingress'),
    };
  }

  /** The owned informers, as a list. */
  ownedInformers(): SharedInformer<KubeObject>[] {
    return Object.values(this.owned) as SharedInformer<KubeObject>[];
  }

  onApplicationBootstrap(): void {
    this.factory.start(this.stopping.signal);
  }

  /** Whether the caches hold `namespace` (undefined: every namespace at once). */
  watches(namespace: string | undefined): boolean {
    return this.namespace === undefined || namespace === this.namespace;
  }

  hasSynced(): boolean {
    return (
      this.nginxes.hasSynced() &&
      this.pods.hasSynced() &&
      this.quotas.hasSynced() &&
      this.ownedInformers().every((informer) => informer.hasSynced())
    );
  }

  waitForCacheSync(signal?: AbortSignal): Promise<boolean> {
    return this.factory.waitForCacheSync(signal);
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.factory.stopped();
  }
}
