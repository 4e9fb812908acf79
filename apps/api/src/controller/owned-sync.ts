import type {
  V1ConfigMap,
  V1ControllerRevision,
  V1EndpointSlice,
  V1Ingress,
  V1PodDisruptionBudget,
  V1Service,
} from '@kubernetes/client-node';
import {
  collectionPath,
  endedWithTerm,
  errorMessage,
  type EventRecorder,
  type InformerCache,
  isApiError,
  isConflict,
  type KubeObject,
  type KubeRequester,
  objectPath,
} from '@ngx/kube-runtime';
import type { Nginx } from '@ngx/nginx-api';
import { BY_NGINX_LABEL } from '../kube/pod-index.js';
import {
  controlledBy,
  disruptionBudgetFor,
  disruptionBudgetStatus,
  ingressFor,
  ingressStatus,
  planHistory,
  serviceFor,
  serviceStatus,
} from './owned-objects.js';
import type { OwnedStatus } from './nginx-status.js';
import type { ReconcileReport } from './reconcile-report.js';
import type { SyncContext } from './sync-context.js';
import { APPLY_PATCH, applyNeeded, FIELD_MANAGER, legacyUpdateEntry } from './server-side-apply.js';

const MERGE_PATCH = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const REVISIONS = { group: 'apps', version: 'v1', plural: 'controllerrevisions' };
const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };
const SERVICES = { group: '', version: 'v1', plural: 'services' };
const BUDGETS = { group: 'policy', version: 'v1', plural: 'poddisruptionbudgets' };
const INGRESSES = { group: 'networking.k8s.io', version: 'v1', plural: 'ingresses' };

/** The caches of what the controller makes besides pods, indexed by BY_NGINX_LABEL. */
export interface OwnedCaches {
  revisions: InformerCache<V1ControllerRevision & KubeObject>;
  configMaps: InformerCache<V1ConfigMap & KubeObject>;
  services: InformerCache<V1Service & KubeObject>;
  budgets: InformerCache<V1PodDisruptionBudget & KubeObject>;
  endpointSlices: InformerCache<V1EndpointSlice & KubeObject>;
  ingresses: InformerCache<V1Ingress & KubeObject>;
}

/** An object an Nginx owns under its own name: where it is cached, what the spec wants of it, how it is reported. */
interface NamedOwned<T extends KubeObject> {
  kind: string;
  resource: { group: string; version: string; plural: string };
  cache: (caches: OwnedCaches) => InformerCache<T>;
  /** What the spec asks for; undefined when it asks for none. */
  desired: (nginx: Nginx) => T | undefined;
  reportKind: 'service' | 'budget' | 'ingress';
  removedReason: string;
}

const OWNED_SERVICE: NamedOwned<V1Service & KubeObject> = {
  kind: 'Service',
  resource: SERVICES,
  cache: (caches) => caches.services,
  desired: (nginx) => serviceFor(nginx) as (V1Service & KubeObject) | undefined,
  reportKind: 'service',
  removedReason: 'service-removed',
};

const OWNED_BUDGET: NamedOwned<V1PodDisruptionBudget & KubeObject> = {
  kind: 'PodDisruptionBudget',
  resource: BUDGETS,
  cache: (caches) => caches.budgets,
  desired: (nginx) => disruptionBudgetFor(nginx) as (V1PodDisruptionBudget & KubeObject) | undefined,
  reportKind: 'budget',
  removedReason: 'disruption-budget-removed',
};

const OWNED_INGRESS: NamedOwned<V1Ingress & KubeObject> = {
  kind: 'Ingress',
  resource: INGRESSES,
  cache: (caches) => caches.ingresses,
  desired: (nginx) => ingressFor(nginx) as (V1Ingress & KubeObject) | undefined,
  reportKind: 'ingress',
  removedReason: 'ingress-removed',
};

/** A write about one owned object refused: the sync retries with the key's backoff. */
export class OwnedObjectError extends Error {
  override name = 'OwnedObjectError';
}

/**
 * Brings what an Nginx owns besides pods to what its spec says, from the caches: the revision history
 * (ControllerRevisions, and the ConfigMaps only pruned revisions used), the Service, the PodDisruptionBudget and
 * the Ingress.
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

  async sync(sync: SyncContext): Promise<OwnedStatus> {
    const { key, nginx, report } = sync;
    await this.syncHistory(sync);
    const service = await this.syncNamed(OWNED_SERVICE, nginx, report);
    const budget = await this.syncNamed(OWNED_BUDGET, nginx, report);
    const ingress = await this.syncNamed(OWNED_INGRESS, nginx, report);
    return {
      service: serviceStatus(service, this.deps.caches.endpointSlices.byIndex(BY_NGINX_LABEL, key)),
      disruptionBudget: disruptionBudgetStatus(budget),
      ingress: ingressStatus(ingress),
    };
  }

  private async syncHistory({ key, nginx, view, pods, report }: SyncContext): Promise<void> {
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

  /**
   * One object an Nginx owns by its own name, brought to what the spec says by server-side apply (as
   * FIELD_MANAGER, forced: the body holds only fields the spec owns, so only those are taken back from another
   * manager; what other managers added is kept, and a field the spec no longer sets is removed). Applied only
   * when the cached object differs from the body in a field we manage (applyNeeded), and reported only when the
   * apply changed the object. One missing from the cache is looked up first, so a namesake outside our label
   * selector is never taken over; one of the same name that is not ours is refused when wanted, left alone
   * otherwise. Deleted when the spec no longer asks for it. Answers the object as it stands after the sync.
   */
  private async syncNamed<T extends KubeObject>(
    owned: NamedOwned<T>,
    nginx: Nginx,
    report: ReconcileReport,
  ): Promise<T | undefined> {
    const desired = owned.desired(nginx);
    const name = nginx.metadata.name!;
    const namespace = nginx.metadata.namespace!;
    const path = objectPath({ ...owned.resource, namespace }, name);
    const cached = owned.cache(this.deps.caches).get(`${namespace}/${name}`);
    const existing = cached ?? (desired ? await this.read<T>(nginx, owned.kind, path) : undefined);
    if (existing && !controlledBy(existing, nginx)) {
      if (desired)
        throw this.refuse(
          nginx,
          `${owned.kind} ${name} exists and is not controlled by this Nginx: not touching it`,
        );
      return undefined;
    }
    if (!desired) {
      if (existing) {
        await this.remove(nginx, owned.kind, owned.resource, existing);
        report.record({ kind: 'delete', object: name, reason: owned.removedReason });
      }
      return undefined;
    }
    if (existing && !applyNeeded(existing, desired)) return existing;
    if (existing) await this.adoptLegacyEntry(nginx, owned.kind, path, existing);
    const applied = await this.write<T>(nginx, owned.kind, name, {
      method: 'PATCH',
      path,
      query: { fieldManager: FIELD_MANAGER, force: true },
      contentType: APPLY_PATCH,
      body: desired,
    });
    if (applied?.metadata?.resourceVersion !== existing?.metadata?.resourceVersion)
      report.record({ kind: owned.reportKind, object: name, reason: existing ? 'updated' : 'created' });
    return applied ?? existing ?? desired;
  }

  /** The object at `path` read from the API server; undefined when there is none. */
  private async read<T>(nginx: Nginx, kind: string, path: string): Promise<T | undefined> {
    return this.write<T>(nginx, kind, path.split('/').pop()!, { path }, { tolerate: [404] });
  }

  /**
   * Makes the managedFields entry our manager left with operation Update (legacyUpdateEntry: an object created or
   * merge-patched before the controller applied it) its Apply entry, as client-go's csaupgrade does: so the
   * apply that follows owns those fields, and removes the ones the spec no longer sets. Once an object; the
   * `test`s make it fail harmlessly (and the apply go on) when the entries moved meanwhile.
   */
  private async adoptLegacyEntry(
    nginx: Nginx,
    kind: string,
    path: string,
    object: KubeObject,
  ): Promise<void> {
    const index = legacyUpdateEntry(object);
    if (index === undefined) return;
    const entry = `/metadata/managedFields/${index}`;
    await this.write(
      nginx,
      kind,
      object.metadata!.name!,
      {
        method: 'PATCH',
        path,
        contentType: JSON_PATCH,
        body: [
          { op: 'test', path: `${entry}/manager`, value: FIELD_MANAGER },
          { op: 'test', path: `${entry}/operation`, value: 'Update' },
          { op: 'replace', path: `${entry}/operation`, value: 'Apply' },
        ],
      },
      { tolerate: [409, 422] },
    );
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
      if (options.tolerate && isApiError(error, ...options.tolerate)) return undefined;
      // The precondition came from the cache, which had not yet seen our own last write: retried once it has,
      // with no Warning (nothing is wrong that a user could act on).
      if (isConflict(error) && options.conflictMeansStaleCache)
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
