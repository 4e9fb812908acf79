import type { V1Pod } from '@kubernetes/client-node';
import {
  KubeApiError,
  collectionPath,
  objectKey,
  objectPath,
  type EventRecorder,
  type Expectations,
  type InformerCache,
  type KubeClient,
  type KubeObject,
  type ReconcileResult,
  type RuntimeLogger,
} from '@ngx/kube-runtime';
import { NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION, type Nginx } from '@ngx/nginx-api';
import { isSettled, nginxStatus, statusChanged, type ReplicaFailure } from './nginx-status.js';
import { PODS_BY_NGINX } from '../kube/cluster-informers.js';
import { claimPods } from './pod-ownership.js';
import { planPods, slowStartBatches } from './pod-plan.js';
import { podFor } from './pod-template.js';
import { ReconcileReport } from './reconcile-report.js';
import type { StrayPods } from './stray-pods.js';

const NGINXES = { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL };
const PODS = { group: '', version: 'v1', plural: 'pods' };

export interface ReconcilerMetrics {
  podCreated(): void;
  podDeleted(reason: string): void;
}

export interface ReconcilerDeps {
  client: KubeClient;
  nginxes: InformerCache<Nginx & KubeObject>;
  pods: InformerCache<V1Pod & KubeObject>;
  expectations: Expectations;
  /** Pods that left our label selector while still owned: released on the owner's next reconcile. */
  strays: StrayPods;
  events: EventRecorder;
  logger: RuntimeLogger;
  /** Most pods created or deleted in one sync (the ReplicaSet controller's burstReplicas). */
  burst: number;
  /**
   * Shortest time between a status write of one Nginx that reports progress (not yet settled) and its last status
   * write or pod action: a scale-up whose pods are ready within it costs one status write, a longer one a write per
   * interval, not one per pod. A settled status (all ready, or failed) is written at once.
   */
  statusIntervalMs?: number;
  now?: () => number;
  metrics?: ReconcilerMetrics;
}

/** A sync that could not do everything: retried through the queue with backoff. */
export class ReconcileError extends Error {
  override name = 'ReconcileError';
}

/**
 * One reconcile of one Nginx: read it and its pods from the caches (never LIST the API server), adopt orphans,
 * create or delete pods to reach spec.replicas — unless pods from the last sync are still expected to show up in
 * the cache — and write status when it changed.
 */
export class NginxReconciler {
  /** When each Nginx's status was last written or its pods last created or deleted, for pacing progress writes. */
  private readonly lastWriteAt = new Map<string, number>();

  constructor(private readonly deps: ReconcilerDeps) {}

  /** Reconciles `key`, noting what it saw and did in `report` (also when it throws). */
  async reconcile(key: string, report = new ReconcileReport()): Promise<ReconcileResult> {
    const { nginxes, pods, expectations, strays } = this.deps;
    const cached = nginxes.get(key);
    if (!cached) {
      expectations.delete(key); // deleted: the garbage collector removes its pods
      strays.forget(key);
      this.lastWriteAt.delete(key);
      return;
    }
    if (cached.metadata?.deletionTimestamp) return;
    const nginx = structuredClone(cached) as Nginx;
    report.observe(nginx);
    const { owned, orphans, mislabelled } = claimPods(nginx, pods.byIndex(PODS_BY_NGINX, key));
    for (const pod of [...mislabelled, ...(await this.strayPods(nginx, strays.take(key)))])
      await this.release(nginx, pod, report);
    for (const orphan of orphans) owned.push(await this.adopt(nginx, orphan, report));

    let failure: ReplicaFailure | undefined;
    if (expectations.satisfied(key)) failure = await this.managePods(key, nginx, owned, report);

    const status = nginxStatus(nginx, owned, failure, new Date().toISOString());
    report.counts = {
      desired: nginx.spec.replicas,
      active: status.replicas ?? 0,
      ready: status.readyReplicas ?? 0,
    };
    if (failure) {
      if (statusChanged(nginx.status, status) && (await this.writeStatus(key, nginx, status)))
        report.record({ kind: 'status' });
      throw new ReconcileError(failure.message);
    }
    if (!statusChanged(nginx.status, status)) return;
    const wait = isSettled(status) ? 0 : this.progressWait(key);
    if (wait > 0) return { requeueAfterMs: wait };
    if (await this.writeStatus(key, nginx, status)) report.record({ kind: 'status' });
  }

  /** How long a progress status write of `key` should wait (0: write now). */
  private progressWait(key: string): number {
    const interval = this.deps.statusIntervalMs ?? 1000;
    const last = this.lastWriteAt.get(key);
    if (last === undefined || interval <= 0) return 0;
    return Math.max(0, last + interval - this.now());
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private async managePods(
    key: string,
    nginx: Nginx,
    owned: V1Pod[],
    report: ReconcileReport,
  ): Promise<ReplicaFailure | undefined> {
    const { expectations } = this.deps;
    const plan = planPods(nginx.spec.replicas, owned, this.deps.burst);
    if (plan.delete.length > 0 || plan.create > 0) this.lastWriteAt.set(key, this.now());
    let failure: ReplicaFailure | undefined;

    if (plan.delete.length > 0) {
      expectations.expectDeletions(
        key,
        plan.delete.map((d) => objectKey(d.pod)),
      );
      const results = await Promise.allSettled(
        plan.delete.map(({ pod, reason }) => this.deletePod(nginx, pod, reason, report)),
      );
      results.forEach((result, i) => {
        if (result.status === 'fulfilled') return;
        expectations.deletionObserved(key, objectKey(plan.delete[i]!.pod)); // it will not be seen going away
        failure ??= { reason: 'FailedDelete', message: errorText(result.reason) };
      });
    }

    if (plan.create > 0) {
      expectations.expectCreations(key, plan.create);
      let remaining = plan.create;
      for (const batch of slowStartBatches(plan.create)) {
        const results = await Promise.allSettled(
          Array.from({ length: batch }, () => this.createPod(nginx, report)),
        );
        remaining -= batch;
        const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
        for (let i = 0; i < failed.length; i++) expectations.creationObserved(key);
        if (failed.length > 0) {
          // Stop here: the rest would most likely fail the same way. They are not coming, so expect none.
          for (let i = 0; i < remaining; i++) expectations.creationObserved(key);
          failure ??= { reason: 'FailedCreate', message: errorText(failed[0]!.reason) };
          break;
        }
      }
    }
    return failure;
  }

  private async createPod(nginx: Nginx, report: ReconcileReport): Promise<void> {
    const namespace = nginx.metadata.namespace!;
    try {
      const pod = await this.deps.client.request<V1Pod>({
        method: 'POST',
        path: collectionPath({ ...PODS, namespace }),
        body: podFor(nginx),
      });
      report.record({ kind: 'create', pod: pod.metadata?.name });
      this.deps.metrics?.podCreated();
      this.deps.events.event(nginx, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
    } catch (error) {
      this.deps.events.event(nginx, 'Warning', 'FailedCreate', `Error creating: ${errorText(error)}`);
      throw error;
    }
  }

  private async deletePod(nginx: Nginx, pod: V1Pod, reason: string, report: ReconcileReport): Promise<void> {
    const { name, namespace, uid } = pod.metadata!;
    try {
      await this.deps.client.request({
        method: 'DELETE',
        path: objectPath({ ...PODS, namespace }, name!),
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } },
      });
      report.record({ kind: 'delete', pod: name, reason });
      this.deps.metrics?.podDeleted(reason);
      this.deps.events.event(nginx, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name} (${reason})`);
    } catch (error) {
      if (error instanceof KubeApiError && error.code === 404) return; // already gone: that is what we wanted
      this.deps.events.event(
        nginx,
        'Warning',
        'FailedDelete',
        `Error deleting pod ${name}: ${errorText(error)}`,
      );
      throw error;
    }
  }

  /** Takes an orphan that carries our label: sets this Nginx as its controller (uid precondition in the patch). */
  private async adopt(nginx: Nginx, pod: V1Pod, report: ReconcileReport): Promise<V1Pod> {
    const { name, namespace, uid } = pod.metadata!;
    const reference = podFor(nginx).metadata!.ownerReferences!;
    const adopted = await this.deps.client.request<V1Pod>({
      method: 'PATCH',
      path: objectPath({ ...PODS, namespace }, name!),
      contentType: 'application/merge-patch+json',
      body: { metadata: { uid, ownerReferences: [...(pod.metadata?.ownerReferences ?? []), ...reference] } },
    });
    report.record({ kind: 'adopt', pod: name });
    return adopted;
  }

  /**
   * Of the pods our watch last saw vanish without being deleted, the ones that still exist, controlled by this
   * Nginx and no longer labelled for it. One GET each: the watch cannot tell a removed label from a deletion.
   */
  private async strayPods(nginx: Nginx, candidates: V1Pod[]): Promise<V1Pod[]> {
    const strays: V1Pod[] = [];
    for (const candidate of candidates) {
      const { name, namespace, uid } = candidate.metadata!;
      try {
        const pod = await this.deps.client.request<V1Pod>({
          path: objectPath({ ...PODS, namespace }, name!),
        });
        const { mislabelled } = claimPods(nginx, [pod]);
        if (pod.metadata?.uid === uid && mislabelled.length > 0) strays.push(pod);
      } catch (error) {
        if (!(error instanceof KubeApiError && error.code === 404)) throw error;
      }
    }
    return strays;
  }

  /**
   * Lets go of a pod this Nginx controls whose labels no longer select it: removes our owner reference (uid
   * precondition), so the garbage collector will not delete it with the Nginx and a replacement is created.
   */
  private async release(nginx: Nginx, pod: V1Pod, report: ReconcileReport): Promise<void> {
    const { name, namespace, uid } = pod.metadata!;
    const ownerReferences = (pod.metadata?.ownerReferences ?? []).filter(
      (ref) => ref.uid !== nginx.metadata.uid,
    );
    try {
      await this.deps.client.request({
        method: 'PATCH',
        path: objectPath({ ...PODS, namespace }, name!),
        contentType: 'application/merge-patch+json',
        body: { metadata: { uid, ownerReferences } },
      });
      report.record({ kind: 'release', pod: name, reason: 'labels-no-longer-match' });
    } catch (error) {
      // Gone, or replaced by a new pod of the same name (uid precondition): nothing of ours to release.
      if (error instanceof KubeApiError && (error.code === 404 || error.code === 409)) return;
      throw error;
    }
  }

  /** Writes status through the subresource; false when the write was skipped as stale (409) or moot (404). */
  private async writeStatus(key: string, nginx: Nginx, status: Nginx['status']): Promise<boolean> {
    const { name, namespace } = nginx.metadata;
    try {
      await this.deps.client.request({
        method: 'PUT',
        path: objectPath({ ...NGINXES, namespace }, name!, 'status'),
        body: { ...nginx, status },
      });
      this.lastWriteAt.set(key, this.now());
      return true;
    } catch (error) {
      // 409: the cache is behind; the newer object is on its way and will be reconciled. 404: it was deleted.
      if (error instanceof KubeApiError && (error.code === 409 || error.code === 404)) return false;
      throw error;
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
