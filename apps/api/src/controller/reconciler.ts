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
import { nginxStatus, statusChanged, type ReplicaFailure } from './nginx-status.js';
import { claimPods } from './pod-ownership.js';
import { planPods, slowStartBatches } from './pod-plan.js';
import { podFor } from './pod-template.js';

/** Index of the pod cache: pods by the Nginx key their label or owner names. */
export const PODS_BY_NGINX = 'nginx';

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
  events: EventRecorder;
  logger: RuntimeLogger;
  /** Most pods created or deleted in one sync (the ReplicaSet controller's burstReplicas). */
  burst: number;
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
  constructor(private readonly deps: ReconcilerDeps) {}

  async reconcile(key: string): Promise<ReconcileResult> {
    const { nginxes, pods, expectations } = this.deps;
    const cached = nginxes.get(key);
    if (!cached) {
      expectations.delete(key); // deleted: the garbage collector removes its pods
      return;
    }
    if (cached.metadata?.deletionTimestamp) return;
    const nginx = structuredClone(cached) as Nginx;
    const { owned, orphans } = claimPods(nginx, pods.byIndex(PODS_BY_NGINX, key));
    for (const orphan of orphans) owned.push(await this.adopt(nginx, orphan));

    let failure: ReplicaFailure | undefined;
    if (expectations.satisfied(key)) failure = await this.managePods(key, nginx, owned);

    const status = nginxStatus(nginx, owned, failure, new Date().toISOString());
    if (statusChanged(nginx.status, status)) await this.writeStatus(nginx, status);
    if (failure) throw new ReconcileError(failure.message);
  }

  private async managePods(key: string, nginx: Nginx, owned: V1Pod[]): Promise<ReplicaFailure | undefined> {
    const { expectations } = this.deps;
    const plan = planPods(nginx.spec.replicas, owned, this.deps.burst);
    let failure: ReplicaFailure | undefined;

    if (plan.delete.length > 0) {
      expectations.expectDeletions(
        key,
        plan.delete.map((d) => objectKey(d.pod)),
      );
      const results = await Promise.allSettled(
        plan.delete.map(({ pod, reason }) => this.deletePod(nginx, pod, reason)),
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
        const results = await Promise.allSettled(Array.from({ length: batch }, () => this.createPod(nginx)));
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

  private async createPod(nginx: Nginx): Promise<void> {
    const namespace = nginx.metadata.namespace!;
    try {
      const pod = await this.deps.client.request<V1Pod>({
        method: 'POST',
        path: collectionPath({ ...PODS, namespace }),
        body: podFor(nginx),
      });
      this.deps.metrics?.podCreated();
      this.deps.events.event(nginx, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata?.name}`);
    } catch (error) {
      this.deps.events.event(nginx, 'Warning', 'FailedCreate', `Error creating: ${errorText(error)}`);
      throw error;
    }
  }

  private async deletePod(nginx: Nginx, pod: V1Pod, reason: string): Promise<void> {
    const { name, namespace, uid } = pod.metadata!;
    try {
      await this.deps.client.request({
        method: 'DELETE',
        path: objectPath({ ...PODS, namespace }, name!),
        body: { apiVersion: 'v1', kind: 'DeleteOptions', preconditions: { uid } },
      });
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
  private async adopt(nginx: Nginx, pod: V1Pod): Promise<V1Pod> {
    const { name, namespace, uid } = pod.metadata!;
    const reference = podFor(nginx).metadata!.ownerReferences!;
    const adopted = await this.deps.client.request<V1Pod>({
      method: 'PATCH',
      path: objectPath({ ...PODS, namespace }, name!),
      contentType: 'application/merge-patch+json',
      body: { metadata: { uid, ownerReferences: [...(pod.metadata?.ownerReferences ?? []), ...reference] } },
    });
    this.deps.logger.info('adopted orphan pod', { key: objectKey(nginx), pod: name });
    return adopted;
  }

  private async writeStatus(nginx: Nginx, status: Nginx['status']): Promise<void> {
    const { name, namespace } = nginx.metadata;
    try {
      await this.deps.client.request({
        method: 'PUT',
        path: objectPath({ ...NGINXES, namespace }, name!, 'status'),
        body: { ...nginx, status },
      });
    } catch (error) {
      // 409: the cache is behind; the newer object is on its way and will be reconciled. 404: it was deleted.
      if (error instanceof KubeApiError && (error.code === 409 || error.code === 404)) return;
      throw error;
    }
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
