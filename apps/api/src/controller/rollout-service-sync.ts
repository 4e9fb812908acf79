import type { V1Service } from '@kubernetes/client-node';
import {
  type InformerCache,
  isApiError,
  type KubeObject,
  type KubeRequester,
  objectPath,
} from '@ngx/kube-runtime';
import type { Nginx } from '@ngx/nginx-api';
import { BY_NGINX_LABEL } from '../kube/pod-index.js';
import { controlledBy } from './owned-objects.js';
import type { ReconcileReport } from './reconcile-report.js';
import {
  LABEL_SERVICE_ROLE,
  rolloutServiceNames,
  rolloutServicesFor,
  type ServiceRevisions,
} from './rollout-services.js';
import { APPLY_PATCH, applyNeeded, FIELD_MANAGER } from './server-side-apply.js';

const SERVICES = { group: '', version: 'v1', plural: 'services' };

/** Why a rollout's Service could not be kept: the rollout waits until it can. */
export interface ServiceProblem {
  reason: 'ServiceNotOwned';
  message: string;
}

/**
 * Keeps the Services of a progressive rollout (rollout-services.ts): each applied, by server-side apply, when it
 * differs from the cache (a selector switch is that one write); any other Service of a rollout role this Nginx
 * controls is deleted (renamed, or the strategy changed). A Service of the name that this Nginx does not control
 * is never touched: a problem. A write that fails throws, before anything that depends on it.
 */
export class RolloutServiceSync {
  constructor(
    private readonly deps: {
      client: KubeRequester;
      services: InformerCache<V1Service & KubeObject>;
    },
  ) {}

  async ensure(
    nginx: Nginx,
    revisions: ServiceRevisions,
    report: ReconcileReport,
  ): Promise<ServiceProblem | undefined> {
    const namespace = nginx.metadata.namespace!;
    for (const service of rolloutServicesFor(nginx, revisions)) {
      const name = service.metadata.name;
      const cached = this.deps.services.get(`${namespace}/${name}`);
      if (cached && !controlledBy(cached, nginx))
        return {
          reason: 'ServiceNotOwned',
          message: `Service ${name} exists and is not controlled by this Nginx`,
        };
      if (cached && !applyNeeded(cached, service as KubeObject)) continue;
      await this.deps.client.request({
        method: 'PATCH',
        path: objectPath({ ...SERVICES, namespace }, name),
        query: { fieldManager: FIELD_MANAGER, force: true },
        contentType: APPLY_PATCH,
        body: service,
      });
      report.record({ kind: 'service', object: name, reason: cached ? 'updated' : 'created' });
    }
    const kept = new Set(Object.values(rolloutServiceNames(nginx)));
    const key = `${namespace}/${nginx.metadata.name}`;
    for (const stale of this.deps.services.byIndex(BY_NGINX_LABEL, key)) {
      const name = stale.metadata!.name!;
      if (!stale.metadata?.labels?.[LABEL_SERVICE_ROLE] || kept.has(name) || !controlledBy(stale, nginx))
        continue;
      try {
        await this.deps.client.request({
          method: 'DELETE',
          path: objectPath({ ...SERVICES, namespace }, name),
          body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid: stale.metadata!.uid } },
        });
        report.record({ kind: 'delete', object: name, reason: 'service-removed' });
      } catch (error) {
        if (!isApiError(error, 404, 409)) throw error;
      }
    }
    return undefined;
  }
}
