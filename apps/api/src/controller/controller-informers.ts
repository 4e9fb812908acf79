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
import { LABEL_NGINX } from '@ngx/nginx-api';
import { Registry } from 'prom-client';
import { appConfig, type AppConfig } from '../config/app-config.js';
import { ClusterInformers, type NginxObject, type PodObject } from '../kube/cluster-informers.js';
import { BY_NGINX_LABEL, byNginxLabel } from '../kube/pod-index.js';
import { nestRuntimeLogger } from '../logging/runtime-logger.js';
import { prometheusReflectorObserver } from '../metrics/runtime-metrics.js';
import { keepOwnManagedFields } from './server-side-apply.js';

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
 * What the controller reads: the shared Nginx and pod informers (ClusterInformers), plus its own — one of
 * ResourceQuotas (a raised quota wakes the Nginxes it refused) and one each of the other objects carrying our label
 * (`owned`). Only the roles that reconcile make these, so an API process never lists or holds them. They run from
 * bootstrap until the app shuts down, and stop after the controller has drained (in onModuleDestroy).
 */
@Injectable()
export class ControllerInformers implements OnApplicationBootstrap, BeforeApplicationShutdown {
  readonly nginxes: SharedInformer<NginxObject>;
  readonly pods: SharedInformer<PodObject>;
  readonly quotas: SharedInformer<QuotaObject>;
  readonly owned: OwnedInformers;
  private readonly factory = new InformerFactory();
  private readonly stopping = new AbortController();

  constructor(
    @Inject(ClusterInformers) private readonly shared: ClusterInformers,
    @Inject(KubeClient) client: KubeClient,
    @Inject(Registry) registry: Registry,
    @Inject(appConfig.KEY) config: AppConfig,
  ) {
    this.nginxes = shared.nginxes;
    this.pods = shared.pods;
    const logger = nestRuntimeLogger(new Logger('Informers'));
    const namespaces = config.watchNamespaces;
    this.quotas = this.factory.informerFor<QuotaObject>({
      client,
      resource: { group: '', version: 'v1', plural: 'resourcequotas' },
      namespaces,
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
      transform: (object: T) => T = stripManagedFields,
    ) =>
      this.factory.informerFor<T>({
        client,
        resource: { group, version, plural },
        namespaces,
        kind,
        labelSelector: LABEL_NGINX,
        transform,
        indexers: { [BY_NGINX_LABEL]: byNginxLabel },
        logger,
        observer: prometheusReflectorObserver(registry, plural),
      });
    this.owned = {
      revisions: ownedInformer<RevisionObject>('apps', 'v1', 'controllerrevisions', 'ControllerRevision'),
      configMaps: ownedInformer<ConfigMapObject>('', 'v1', 'configmaps', 'ConfigMap'),
      // The applied ones keep our managedFields entries: what applyNeeded compares with.
      services: ownedInformer<ServiceObject>('', 'v1', 'services', 'Service', keepOwnManagedFields),
      budgets: ownedInformer<BudgetObject>(
        'policy',
        'v1',
        'poddisruptionbudgets',
        'PodDisruptionBudget',
        keepOwnManagedFields,
      ),
      endpointSlices: ownedInformer<EndpointSliceObject>(
        'discovery.k8s.io',
        'v1',
        'endpointslices',
        'EndpointSlice',
      ),
      ingresses: ownedInformer<IngressObject>(
        'networking.k8s.io',
        'v1',
        'ingresses',
        'Ingress',
        keepOwnManagedFields,
      ),
    };
  }

  /** The owned informers, as a list. */
  ownedInformers(): SharedInformer<KubeObject>[] {
    return Object.values(this.owned) as SharedInformer<KubeObject>[];
  }

  onApplicationBootstrap(): void {
    this.factory.start(this.stopping.signal);
  }

  hasSynced(): boolean {
    return (
      this.shared.hasSynced() &&
      this.quotas.hasSynced() &&
      this.ownedInformers().every((informer) => informer.hasSynced())
    );
  }

  async beforeApplicationShutdown(): Promise<void> {
    this.stopping.abort();
    await this.factory.stopped();
  }
}
