import type { V1ConfigMap, V1ObjectMeta, V1Pod } from '@kubernetes/client-node';
import {
  collectionPath,
  endedWithTerm,
  errorMessage,
  type EventRecorder,
  ignoreNotFound,
  type InformerCache,
  isApiError,
  isConflict,
  isNotFound,
  type KubeObject,
  type KubeRequester,
  METADATA_ONLY,
  objectPath,
} from '@ngx/kube-runtime';
import { LABEL_REVISION, NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION, type Nginx } from '@ngx/nginx-api';
import type { RolloutView } from './nginx-status.js';
import { isMislabelled } from './pod-ownership.js';
import { configMapFor, controllerReference, podFor, podLike } from './pod-builder.js';
import type { ReconcileReport } from './reconcile-report.js';
import type { StrayPods } from './stray-pods.js';

const NGINXES = { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };
const STRATEGIC_MERGE = 'application/strategic-merge-patch+json';

export interface PodWriteMetrics {
  podCreated(): void;
  podDeleted(reason: string): void;
  /** A pod creation the API server refused (e.g. a quota). */
  podCreateFailed(): void;
}

export interface PodWritesDeps {
  /** The leadership term's FencedClient: nothing is written after the term. */
  client: KubeRequester;
  events: Pick<EventRecorder, 'event'>;
  /** The ConfigMaps carrying our label: one the cache holds is not created again. */
  configMaps: InformerCache<V1ConfigMap & KubeObject>;
  strays: StrayPods;
  metrics?: PodWriteMetrics;
}

/**
 * The reconciler's requests about one Nginx's pods: create (after the ConfigMap they mount), delete, adopt,
 * release, and the reads adoption and stray pods need. Each write is noted in the report, and told as an Event
 * and in the metrics; a write that failed because the term ended tells nothing.
 */
export class PodWrites {
  constructor(private readonly deps: PodWritesDeps) {}

  /**
   * Creates the ConfigMap the update revision's pods mount, unless the cache holds it. It is immutable and named
   * by its content's hash, so one that exists already (409) is the right one.
   */
  async ensureConfigMap(nginx: Nginx, view: RolloutView, report: ReconcileReport): Promise<void> {
    const configMap = configMapFor(nginx, view.template);
    if (!configMap) return;
    const { name, namespace } = configMap.metadata!;
    if (this.deps.configMaps.has(`${namespace}/${name}`)) return;
    try {
      await this.deps.client.request({
        method: 'POST',
        path: collectionPath({ ...CONFIG_MAPS, namespace }),
        body: configMap,
      });
      report.record({ kind: 'config', object: name, revision: view.updateRevision });
    } catch (error) {
      if (isConflict(error)) return;
      this.warn(nginx, error, 'FailedCreate', `Error creating ConfigMap ${name}`);
      throw error;
    }
  }

  /** Creates a pod of the update revision, or one like `model` (paused mid-rollout). */
  async create(nginx: Nginx, view: RolloutView, report: ReconcileReport, model?: V1Pod): Promise<void> {
    const namespace = nginx.metadata.namespace!;
    try {
      const pod = await this.deps.client.request<{ metadata?: V1ObjectMeta }>({
        method: 'POST',
        path: collectionPath({ ...PODS, namespace }),
        body: model ? podLike(nginx, model) : podFor(nginx, view.template, view.updateRevision),
        accept: METADATA_ONLY,
      });
      const revision = pod.metadata?.labels?.[LABEL_REVISION];
      report.record({ kind: 'create', pod: pod.metadata?.name, ...(revision ? { revision } : {}) });
      this.deps.metrics?.podCreated();
      this.deps.events.event(nginx, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
    } catch (error) {
      if (this.warn(nginx, error, 'FailedCreate', 'Error creating')) this.deps.metrics?.podCreateFailed();
      throw error;
    }
  }

  /** Deletes `pod`, with its uid as a precondition. One already gone is what was wanted. */
  async delete(nginx: Nginx, pod: V1Pod, reason: string, report: ReconcileReport): Promise<void> {
    const { name, namespace, uid } = pod.metadata!;
    try {
      await this.deps.client.request({
        method: 'DELETE',
        path: objectPath({ ...PODS, namespace }, name!),
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } },
        accept: METADATA_ONLY,
      });
      const revision = pod.metadata?.labels?.[LABEL_REVISION];
      report.record({ kind: 'delete', pod: name, reason, ...(revision ? { revision } : {}) });
      this.deps.metrics?.podDeleted(reason);
      this.deps.events.event(nginx, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name} (${reason})`);
    } catch (error) {
      if (isNotFound(error)) return;
      this.warn(nginx, error, 'FailedDelete', `Error deleting pod ${name}`);
      throw error;
    }
  }

  /**
   * Before adopting, reads the Nginx from the API server, not the cache (the ReplicaSet controller's
   * RecheckDeletionTimestamp): a cached copy may not show yet that it was deleted — say with
   * `--cascade=orphan`, whose garbage collector is busy releasing these very pods — and adopting for an Nginx
   * on its way out would hand the user's pods to the garbage collector. Resolves with why its orphans must not
   * be adopted, or undefined when they may.
   */
  async whyNotAdopt(nginx: Nginx): Promise<string | undefined> {
    const { name, namespace, uid } = nginx.metadata;
    let fresh: Nginx;
    try {
      fresh = await this.deps.client.request<Nginx>({ path: objectPath({ ...NGINXES, namespace }, name!) });
    } catch (error) {
      if (isNotFound(error)) return `${namespace}/${name} is gone: not adopting its orphans`;
      throw error;
    }
    if (fresh.metadata.uid !== uid)
      return `${namespace}/${name} was replaced (uid ${fresh.metadata.uid}, cached ${uid}): not adopting its orphans`;
    if (fresh.metadata.deletionTimestamp)
      return `${namespace}/${name} is being deleted (since ${String(fresh.metadata.deletionTimestamp)}): not adopting its orphans`;
    return undefined;
  }

  /**
   * Makes this Nginx the controller of an orphan matching its selector: a strategic merge patch that adds our
   * owner reference by uid (keeping every other), with the pod's uid as a precondition. Should someone else have
   * made themselves its controller meanwhile, the API server refuses a second controller reference (422) and the
   * sync fails, to be retried: nothing is overwritten. A pod gone meanwhile is skipped (undefined).
   */
  async adopt(nginx: Nginx, pod: V1Pod, report: ReconcileReport): Promise<V1Pod | undefined> {
    const { name, namespace, uid } = pod.metadata!;
    try {
      const adopted = await this.deps.client.request<V1Pod>({
        method: 'PATCH',
        path: objectPath({ ...PODS, namespace }, name!),
        contentType: STRATEGIC_MERGE,
        body: { metadata: { uid, ownerReferences: [controllerReference(nginx)] } },
      });
      report.record({ kind: 'adopt', pod: name });
      return adopted;
    } catch (error) {
      return ignoreNotFound(error);
    }
  }

  /**
   * Of the pods our watch saw vanish without being deleted, releases the ones that still exist, are controlled by
   * this Nginx and no longer match its selector. One GET each: the watch cannot tell a removed label from a
   * deletion. A candidate is settled only after it was looked at, so a failing GET leaves the rest for the retry.
   */
  async releaseStrays(key: string, nginx: Nginx, report: ReconcileReport): Promise<void> {
    const { strays } = this.deps;
    for (const candidate of strays.candidates(key)) {
      const { name, namespace, uid } = candidate.metadata!;
      let pod: V1Pod | undefined;
      try {
        pod = await this.deps.client.request<V1Pod>({ path: objectPath({ ...PODS, namespace }, name!) });
      } catch (error) {
        ignoreNotFound(error);
      }
      if (pod && pod.metadata?.uid === uid && isMislabelled(pod, nginx.metadata.uid!, nginx.metadata.name!))
        await this.release(nginx, pod, report);
      strays.settle(key, uid!);
    }
  }

  /**
   * Lets go of a pod this Nginx controls whose labels no longer match its selector: a strategic merge patch that
   * deletes only our owner reference (by uid), with the pod's uid as a precondition, so the garbage collector
   * will not delete it with the Nginx, and a replacement is created.
   */
  async release(nginx: Nginx, pod: V1Pod, report: ReconcileReport): Promise<void> {
    const { name, namespace, uid } = pod.metadata!;
    try {
      await this.deps.client.request({
        method: 'PATCH',
        path: objectPath({ ...PODS, namespace }, name!),
        contentType: STRATEGIC_MERGE,
        body: { metadata: { uid, ownerReferences: [{ $patch: 'delete', uid: nginx.metadata.uid }] } },
      });
      report.record({ kind: 'release', pod: name, reason: 'labels-no-longer-match' });
    } catch (error) {
      // Gone (404), replaced by a new pod of the same name (409, the uid precondition), or no longer carrying our
      // reference (422): nothing of ours to release.
      if (isApiError(error, 404, 409, 422)) return;
      throw error;
    }
  }

  /** Tells a refused write as a Warning Event, and whether it did: one cut short by the term's end tells nothing. */
  private warn(nginx: Nginx, error: unknown, reason: string, what: string): boolean {
    if (endedWithTerm(error)) return false;
    this.deps.events.event(nginx, 'Warning', reason, `${what}: ${errorMessage(error)}`);
    return true;
  }
}
