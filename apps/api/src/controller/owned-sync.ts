import type {
  V1ConfigMap,
  V1ControllerRevision,
  V1EndpointSlice,
  V1Pod,
  V1PodDisruptionBudget,
  V1Service,
} from '@kubernetes/client-node';
import {
  KubeApiError,
  collectionPath,
  endedWithTerm,
  errorMessage,
  objectPath,
  type EventRecorder,
  type InformerCache,
  type KubeObject,
  type KubeRequester,
} from '@ngx/kube-runtime';
import type { Nginx, NginxDisruptionBudgetStatus, NginxServiceStatus } from '@ngx/nginx-api';
import { BY_NGINX_LABEL } from '../kube/pod-index.js';
import type { RolloutView } from './nginx-status.js';
import {
  controlledBy,
  disruptionBudgetFor,
  disruptionBudgetPatch,
  disruptionBudgetStatus,
  planHistory,
  serviceFor,
  servicePatch,
  serviceStatus,
} from './owned-objects.js';
import type { ReconcileReport } from './reconcile-report.js';

const MERGE_PATCH = 'application/merge-patch+json';
const REVISIONS = { group: 'apps', version: 'v1', plural: 'controllerrevisions' };
const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };
const SERVICES = { group: '', version: 'v1', plural: 'services' };
const BUDGETS = { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets' };

/** The caches of what the controller makes besides pods, indexed by BY_NGINX_LABEL. */
export interface OwnedCaches {
  revisions: InformerCache<V1ControllerRevision & KubeObject>;
  configMaps: InformerCache<V1ConfigMap & KubeObject>;
  services: InformerCache<V1Service & KubeObject>;
  budgets: InformerCache<V1PodDisruptionBudget & KubeObject>;
  endpointSlices: InformerCache<V1EndpointSlice & KubeObject>;
}

/** What the owned Service and budget add to the Nginx's status (each absent when there is none). */
export interface OwnedStatus {
  service?: NginxServiceStatus;
  disruptionBudget?: NginxDisruptionBudgetStatus;
}

/** A write about one owned object refused: the sync retries with the key's backoff. */
export class OwnedObjectError extends Error {
  override name = 'OwnedObjectError';
}

/**
 * Brings what an Nginx owns besides pods to what its spec says, from the caches: the revision history
 * (ControllerRevisions, and the ConfigMaps only pruned revisions used), the Service and the PodDisruptionBudget.
 * Each write is one request, made only when the cache shows a difference; an object of the same name that is
 * not ours is left alone and reported. Returns the Service's part of the status.
 */
export class OwnedSync {
  constructor(
    private readonly deps: {
      client: KubeRequester;
      caches: OwnedCaches;
      events: EventRecorder;
    },
  ) {}

  async sync(
    key: string,
    nginx: Nginx,
    view: RolloutView,
    pods: readonly V1Pod[],
    report: ReconcileReport,
  ): Promise<OwnedStatus> {
    await this.syncHistory(key, nginx, view, pods, report);
    const service = await this.syncService(key, nginx, report);
    const budget = await this.syncBudget(key, nginx, report);
    return {
      service: serviceStatus(service, this.deps.caches.endpointSlices.byIndex(BY_NGINX_LABEL, key)),
      disruptionBudget: disruptionBudgetStatus(budget),
    };
  }

  private async syncHistory(
    key: string,
    nginx: Nginx,
    view: RolloutView,
    pods: readonly V1Pod[],
    report: ReconcileReport,
  ): Promise<void> {
    const { caches } = this.deps;
    const plan = planHistory({
      nginx,
      template: view.template,
      updateRevision: view.updateRevision,
      runnable: view.invalid === undefined,
      revisions: caches.revisions.byIndex(BY_NGINX_LABEL, key),
      configMaps: caches.configMaps.byIndex(BY_NGINX_LABEL, key),
      pods,
    });
    const namespace = nginx.metadata.namespace!;
    if (plan.create) {
      await this.write(
        nginx,
        'ControllerRevision',
        plan.create.metadata!.name!,
        {
          method: 'POST',
          path: collectionPath({ ...REVISIONS, namespace }),
          body: plan.create,
        },
        { tolerate: [409] },
      );
      report.record({ kind: 'revision', object: plan.create.metadata!.name, revision: view.updateRevision });
    }
    if (plan.renumber) {
      const { revision, number } = plan.renumber;
      await this.write(
        nginx,
        'ControllerRevision',
        revision.metadata!.name!,
        {
          method: 'PATCH',
          path: objectPath({ ...REVISIONS, namespace }, revision.metadata!.name!),
          contentType: MERGE_PATCH,
          body: { metadata: { resourceVersion: revision.metadata!.resourceVersion }, revision: number },
        },
        { conflictMeansStaleCache: true },
      );
      report.record({
        kind: 'revision',
        object: revision.metadata!.name,
        revision: view.updateRevision,
        reason: `renumbered ${number}`,
      });
    }
    for (const old of plan.prune) {
      await this.remove(nginx, 'ControllerRevision', REVISIONS, old);
      report.record({ kind: 'delete', object: old.metadata!.name, reason: 'revision-history-limit' });
    }
    for (const configMap of plan.pruneConfigMaps) {
      await this.remove(nginx, 'ConfigMap', CONFIG_MAPS, configMap);
      report.record({ kind: 'delete', object: configMap.metadata!.name, reason: 'config-unused' });
    }
  }

  /** The Service as it stands after the sync (undefined when spec.service is not set). */
  private async syncService(
    key: string,
    nginx: Nginx,
    report: ReconcileReport,
  ): Promise<V1Service | undefined> {
    const desired = serviceFor(nginx);
    const name = nginx.metadata.name!;
    const namespace = nginx.metadata.namespace!;
    const existing = this.deps.caches.services.get(`${namespace}/${name}`);
    if (existing && !controlledBy(existing, nginx)) {
      if (desired)
        throw this.refuse(
          nginx,
          `Service ${name} exists and is not controlled by this Nginx: not touching it`,
        );
      return undefined;
    }
    if (!desired) {
      if (existing) {
        await this.remove(nginx, 'Service', SERVICES, existing);
        report.record({ kind: 'delete', object: name, reason: 'service-removed' });
      }
      return undefined;
    }
    if (!existing) {
      const created = await this.write<V1Service>(
        nginx,
        'Service',
        name,
        {
          method: 'POST',
          path: collectionPath({ ...SERVICES, namespace }),
          body: desired,
        },
        { tolerate: [409] },
      );
      report.record({ kind: 'service', object: name, reason: 'created' });
      return created ?? desired;
    }
    const patch = servicePatch(existing, desired);
    if (!patch) return existing;
    const updated = await this.write<V1Service>(nginx, 'Service', name, {
      method: 'PATCH',
      path: objectPath({ ...SERVICES, namespace }, name),
      contentType: MERGE_PATCH,
      body: patch,
    });
    report.record({ kind: 'service', object: name, reason: 'updated' });
    return updated ?? existing;
  }

  private async syncBudget(
    key: string,
    nginx: Nginx,
    report: ReconcileReport,
  ): Promise<V1PodDisruptionBudget | undefined> {
    const desired = disruptionBudgetFor(nginx);
    const name = nginx.metadata.name!;
    const namespace = nginx.metadata.namespace!;
    const existing = this.deps.caches.budgets.get(`${namespace}/${name}`);
    if (existing && !controlledBy(existing, nginx)) {
      if (desired)
        throw this.refuse(
          nginx,
          `PodDisruptionBudget ${name} exists and is not controlled by this Nginx: not touching it`,
        );
      return undefined;
    }
    if (!desired) {
      if (existing) {
        await this.remove(nginx, 'PodDisruptionBudget', BUDGETS, existing);
        report.record({ kind: 'delete', object: name, reason: 'disruption-budget-removed' });
      }
      return undefined;
    }
    if (!existing) {
      const created = await this.write<V1PodDisruptionBudget>(
        nginx,
        'PodDisruptionBudget',
        name,
        {
          method: 'POST',
          path: collectionPath({ ...BUDGETS, namespace }),
          body: desired,
        },
        { tolerate: [409] },
      );
      report.record({ kind: 'budget', object: name, reason: 'created' });
      return created;
    }
    const patch = disruptionBudgetPatch(existing, desired);
    if (!patch) return existing;
    const updated = await this.write<V1PodDisruptionBudget>(nginx, 'PodDisruptionBudget', name, {
      method: 'PATCH',
      path: objectPath({ ...BUDGETS, namespace }, name),
      contentType: MERGE_PATCH,
      body: patch,
    });
    report.record({ kind: 'budget', object: name, reason: 'updated' });
    return updated ?? existing;
  }

  /** One write; a refusal becomes a Warning Event and an OwnedObjectError (codes in `tolerate` are fine). */
  private async write<T>(
    nginx: Nginx,
    kind: string,
    name: string,
    request: Parameters<KubeRequester['request']>[0],
    options: { tolerate?: number[]; conflictMeansStaleCache?: boolean } = {},
  ): Promise<T | undefined> {
    try {
      return await this.deps.client.request<T>(request);
    } catch (error) {
      if (error instanceof KubeApiError && options.tolerate?.includes(error.code)) return undefined;
      // The precondition came from the cache, which had not yet seen our own last write: retried once it has,
      // with no Warning (nothing is wrong that a user could act on).
      if (error instanceof KubeApiError && error.code === 409 && options.conflictMeansStaleCache)
        throw new OwnedObjectError(`${kind} ${name} changed since it was cached: retrying`);
      if (endedWithTerm(error)) throw error;
      throw this.refuse(nginx, `Error writing ${kind} ${name}: ${errorMessage(error)}`);
    }
  }

  /** Deletes an object we control, by uid (a namesake made meanwhile is not touched); gone already is fine. */
  private async remove(
    nginx: Nginx,
    kind: string,
    resource: { group: string; version: string; plural: string },
    object: { metadata?: { name?: string; namespace?: string; uid?: string } },
  ): Promise<void> {
    const { name, namespace, uid } = object.metadata!;
    await this.write(
      nginx,
      kind,
      name!,
      {
        method: 'DELETE',
        path: objectPath({ ...resource, namespace: namespace! }, name!),
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } },
      },
      { tolerate: [404, 409] },
    );
  }

  private refuse(nginx: Nginx, message: string): OwnedObjectError {
    this.deps.events.event(nginx, 'Warning', 'FailedSync', message);
    return new OwnedObjectError(message);
  }
}
