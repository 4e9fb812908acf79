import type { V1ObjectMeta, V1Pod } from '@kubernetes/client-node';
import {
  collectionPath,
  endedWithTerm,
  errorMessage,
  type EventRecorder,
  type Expectations,
  ignoreNotFound,
  type InformerCache,
  isApiError,
  isConflict,
  isNotFound,
  type KubeObject,
  type KubeRequester,
  METADATA_ONLY,
  objectKey,
  objectPath,
  type ReconcileResult,
  type RuntimeLogger,
} from '@ngx/kube-runtime';
import { LABEL_REVISION, NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION, type Nginx } from '@ngx/nginx-api';
import { OwnedSync, type OwnedCaches, type OwnedStatus } from './owned-sync.js';
import {
  deadlineIn,
  isSettled,
  nginxStatus,
  podCounts,
  rolloutView,
  statusChanged,
  type ReplicaFailure,
  type RolloutView,
} from './nginx-status.js';
import { PODS_BY_NGINX } from '../kube/pod-index.js';
import { claimPods, isMislabelled } from './pod-ownership.js';
import { slowStartBatches } from './pod-plan.js';
import { configMapFor, controllerReference, podFor, podLike } from './pod-builder.js';
import { ProgressPacing } from './progress-pacing.js';
import { planRollout, type RolloutPlan } from './rollout-plan.js';
import { ReconcileReport } from './reconcile-report.js';
import type { StrayPods } from './stray-pods.js';

const NGINXES = { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL };
const PODS = { group: '', version: 'v1', plural: 'pods' };
const CONFIG_MAPS = { group: '', version: 'v1', plural: 'configmaps' };
const STRATEGIC_MERGE = 'application/strategic-merge-patch+json';
const NEVER = new AbortController().signal;

export interface ReconcilerMetrics {
  podCreated(): void;
  podDeleted(reason: string): void;
  /** A pod creation the API server refused (e.g. a quota). */
  podCreateFailed(): void;
}

export interface ReconcilerDeps {
  /** Every request goes through it: the leadership term's FencedClient, so nothing is written after the term. */
  client: KubeRequester;
  nginxes: InformerCache<Nginx & KubeObject>;
  pods: InformerCache<V1Pod & KubeObject>;
  /** The caches of ControllerRevisions, ConfigMaps, Services, budgets and EndpointSlices carrying our label. */
  owned: OwnedCaches;
  expectations: Expectations;
  /** Pods that may have left our label selector while still owned: checked and released on the owner's reconcile. */
  strays: StrayPods;
  events: EventRecorder;
  logger: RuntimeLogger;
  /** Most pods created or deleted in one sync (the ReplicaSet controller's burstReplicas). */
  burst: number;
  /** Shortest time between a progress status write of one Nginx and its last status write or pod action (1 s). */
  statusIntervalMs?: number;
  /** Progress status writes a second shared by all Nginxes making progress at once (10; see ProgressPacing). */
  progressWritesPerSecond?: number;
  now?: () => number;
  metrics?: ReconcilerMetrics;
}

/** A sync that could not do everything: retried through the queue with backoff. */
export class ReconcileError extends Error {
  override name = 'ReconcileError';
}

/**
 * One reconcile of one Nginx: read it and its pods from the caches (never LIST the API server), release pods
 * that left its selector, adopt orphans (after a fresh read proves the Nginx is still there and not being
 * deleted), create or delete pods to reach spec.replicas — unless pods from the last sync are still expected to
 * show up in the cache — and write status when it changed. It stops at the next step once `signal` aborts.
 */
export class NginxReconciler {
  private readonly pacing: ProgressPacing;
  private readonly ownedSync: OwnedSync;

  constructor(private readonly deps: ReconcilerDeps) {
    this.ownedSync = new OwnedSync({ client: deps.client, caches: deps.owned, events: deps.events });
    this.pacing = new ProgressPacing({
      intervalMs: deps.statusIntervalMs ?? 1000,
      perSecond: deps.progressWritesPerSecond ?? 10,
      now: () => this.now(),
    });
  }

  /** Reconciles `key`, noting what it saw and did in `report` (also when it throws). */
  async reconcile(
    key: string,
    report = new ReconcileReport(),
    signal: AbortSignal = NEVER,
  ): Promise<ReconcileResult> {
    const { nginxes, pods, expectations, strays } = this.deps;
    const cached = nginxes.get(key);
    if (!cached) {
      expectations.delete(key); // deleted: the garbage collector removes its pods
      strays.forget(key);
      this.pacing.forget(key);
      return;
    }
    if (cached.metadata?.deletionTimestamp) return;
    const nginx = structuredClone(cached) as Nginx;
    report.observe(nginx);
    // Before the pods are read, as the ReplicaSet controller does: when every creation and deletion this key
    // expects has been seen, the pods read next hold them all. Checked after the awaits below instead, an
    // expectation met meanwhile would be judged against pods read before it was: one pod too few, created twice.
    const expectationsMet = expectations.satisfied(key);
    const { owned, orphans, mislabelled } = claimPods(nginx, pods.byIndex(PODS_BY_NGINX, key));
    for (const pod of mislabelled) await this.release(nginx, pod, report);
    await this.releaseStrays(key, nginx, report);
    if (orphans.length > 0) {
      await this.confirmAdopter(nginx);
      for (const orphan of orphans) {
        const adopted = await this.adopt(nginx, orphan, report);
        if (adopted) owned.push(adopted);
      }
    }
    signal.throwIfAborted();

    const now = this.now();
    const view = rolloutView(nginx, now);
    let failure: ReplicaFailure | undefined;
    let recheckInMs: number | undefined;
    if (expectationsMet)
      ({ failure, recheckInMs } = await this.managePods(key, nginx, owned, view, report, signal));
    signal.throwIfAborted();
    // When the sync fails, the status keeps what it said about the Service and budget until one succeeds.
    let ownedStatus: OwnedStatus = {
      service: nginx.status?.service,
      disruptionBudget: nginx.status?.disruptionBudget,
    };
    let ownedFailure: Error | undefined;
    try {
      ownedStatus = await this.ownedSync.sync(key, nginx, view, owned, report);
    } catch (error) {
      if (endedWithTerm(error)) throw error;
      ownedFailure = error instanceof Error ? error : new Error(String(error));
    }
    signal.throwIfAborted();

    const status = nginxStatus(nginx, owned, failure, new Date(now).toISOString(), view, ownedStatus);
    report.counts = {
      desired: nginx.spec.replicas,
      active: status.replicas ?? 0,
      ready: status.readyReplicas ?? 0,
    };
    if (failure || ownedFailure) {
      if (statusChanged(nginx.status, status) && (await this.writeStatus(key, nginx, status)) === 'written')
        report.record({ kind: 'status' });
      throw new ReconcileError((failure ?? ownedFailure)!.message);
    }
    // A pod turning available (minReadySeconds) and the progress deadline are moments no event announces.
    const due = earliest(recheckInMs, deadlineIn(nginx, status, now));
    const later = due === undefined ? undefined : { requeueAfterMs: Math.max(1, due) };
    const settled = isSettled(status);
    if (settled) this.pacing.settled(key);
    if (!statusChanged(nginx.status, status)) return later;
    const wait = settled ? 0 : this.pacing.wait(key, podCounts(status));
    if (wait > 0) return { requeueAfterMs: earliest(wait, due)! };
    const written = await this.writeStatus(key, nginx, status);
    if (written === 'written') report.record({ kind: 'status' });
    // Our cache is behind: look again with the key's backoff (no update event is sure to wake us: a status-only
    // change of an Nginx does not trigger a sync).
    if (written === 'conflict') return { requeue: true };
    return later;
  }

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  private async managePods(
    key: string,
    nginx: Nginx,
    owned: V1Pod[],
    view: RolloutView,
    report: ReconcileReport,
    signal: AbortSignal,
  ): Promise<{ failure?: ReplicaFailure; recheckInMs?: number }> {
    const { expectations } = this.deps;
    const plan = planRollout({
      replicas: nginx.spec.replicas,
      strategy: nginx.spec.strategy,
      updateRevision: view.updateRevision,
      template: view.template,
      pods: owned,
      minReadySeconds: nginx.spec.minReadySeconds ?? 0,
      now: view.now,
      burst: this.deps.burst,
      paused: nginx.spec.paused === true,
      invalid: view.invalid !== undefined,
    });
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
        failure ??= { reason: 'FailedDelete', message: errorMessage(result.reason) };
      });
    }

    if (plan.create > 0 && !failure) failure = await this.createPods(key, nginx, view, plan, report, signal);
    // Progress writes are paced from the burst's end: under load a burst takes longer than the interval itself.
    if (plan.delete.length > 0 || plan.create > 0) this.pacing.acted(key);
    return { failure, recheckInMs: plan.availableInMs };
  }

  /**
   * Creates `plan.create` pods in slow-start batches (after the ConfigMap they mount), expecting each; stops at the
   * first refused batch and expects none of the rest. Resolves with why it stopped short, if it did.
   */
  private async createPods(
    key: string,
    nginx: Nginx,
    view: RolloutView,
    plan: RolloutPlan,
    report: ReconcileReport,
    signal: AbortSignal,
  ): Promise<ReplicaFailure | undefined> {
    const { expectations } = this.deps;
    try {
      if (!plan.createLike) await this.ensureConfigMap(nginx, view, report);
    } catch (error) {
      if (endedWithTerm(error)) throw error;
      return { reason: 'FailedCreate', message: errorMessage(error) };
    }
    expectations.expectCreations(key, plan.create);
    let remaining = plan.create;
    for (const batch of slowStartBatches(plan.create)) {
      if (signal.aborted) break;
      const results = await Promise.allSettled(
        Array.from({ length: batch }, () => this.createPod(nginx, view, report, plan.createLike)),
      );
      remaining -= batch;
      const failed = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      for (let i = 0; i < failed.length; i++) expectations.creationObserved(key);
      if (failed.length > 0) {
        // Stop here: the rest would most likely fail the same way. They are not coming, so expect none.
        for (let i = 0; i < remaining; i++) expectations.creationObserved(key);
        return { reason: 'FailedCreate', message: errorMessage(failed[0]!.reason) };
      }
    }
    return undefined;
  }

  /**
   * Creates the ConfigMap the update revision's pods mount, unless the cache holds it. It is immutable and named
   * by its content's hash, so one that exists already (409) is the right one.
   */
  private async ensureConfigMap(nginx: Nginx, view: RolloutView, report: ReconcileReport): Promise<void> {
    const configMap = configMapFor(nginx, view.template);
    if (!configMap) return;
    const { name, namespace } = configMap.metadata!;
    if (this.deps.owned.configMaps.has(`${namespace}/${name}`)) return;
    try {
      await this.deps.client.request({
        method: 'POST',
        path: collectionPath({ ...CONFIG_MAPS, namespace }),
        body: configMap,
      });
      report.record({ kind: 'config', object: name, revision: view.updateRevision });
    } catch (error) {
      if (!isConflict(error)) {
        if (!endedWithTerm(error))
          this.deps.events.event(
            nginx,
            'Warning',
            'FailedCreate',
            `Error creating ConfigMap ${name}: ${errorMessage(error)}`,
          );
        throw error;
      }
    }
  }

  /** Creates a pod of the update revision, or one like `model` (paused mid-rollout). */
  private async createPod(
    nginx: Nginx,
    view: RolloutView,
    report: ReconcileReport,
    model?: V1Pod,
  ): Promise<void> {
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
      if (!endedWithTerm(error)) {
        this.deps.metrics?.podCreateFailed();
        this.deps.events.event(nginx, 'Warning', 'FailedCreate', `Error creating: ${errorMessage(error)}`);
      }
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
        accept: METADATA_ONLY,
      });
      const revision = pod.metadata?.labels?.[LABEL_REVISION];
      report.record({ kind: 'delete', pod: name, reason, ...(revision ? { revision } : {}) });
      this.deps.metrics?.podDeleted(reason);
      this.deps.events.event(nginx, 'Normal', 'SuccessfulDelete', `Deleted pod: ${name} (${reason})`);
    } catch (error) {
      if (isNotFound(error)) return; // already gone: that is what we wanted
      if (!endedWithTerm(error))
        this.deps.events.event(
          nginx,
          'Warning',
          'FailedDelete',
          `Error deleting pod ${name}: ${errorMessage(error)}`,
        );
      throw error;
    }
  }

  /**
   * Before adopting, reads the Nginx from the API server, not the cache (the ReplicaSet controller's
   * RecheckDeletionTimestamp): a cached copy may not show yet that it was deleted — say with
   * `--cascade=orphan`, whose garbage collector is busy releasing these very pods — and adopting for an Nginx
   * on its way out would hand the user's pods to the garbage collector.
   */
  private async confirmAdopter(nginx: Nginx): Promise<void> {
    const { name, namespace, uid } = nginx.metadata;
    let fresh: Nginx;
    try {
      fresh = await this.deps.client.request<Nginx>({ path: objectPath({ ...NGINXES, namespace }, name!) });
    } catch (error) {
      if (isNotFound(error))
        throw new ReconcileError(`${namespace}/${name} is gone: not adopting its orphans`);
      throw error;
    }
    if (fresh.metadata.uid !== uid)
      throw new ReconcileError(
        `${namespace}/${name} was replaced (uid ${fresh.metadata.uid}, cached ${uid}): not adopting its orphans`,
      );
    if (fresh.metadata.deletionTimestamp)
      throw new ReconcileError(
        `${namespace}/${name} is being deleted (since ${String(fresh.metadata.deletionTimestamp)}): not adopting its orphans`,
      );
  }

  /**
   * Makes this Nginx the controller of an orphan matching its selector: a strategic merge patch that adds our
   * owner reference by uid (keeping every other), with the pod's uid as a precondition. Should someone else have
   * made themselves its controller meanwhile, the API server refuses a second controller reference (422) and the
   * sync fails, to be retried: nothing is overwritten. A pod gone meanwhile is skipped.
   */
  private async adopt(nginx: Nginx, pod: V1Pod, report: ReconcileReport): Promise<V1Pod | undefined> {
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
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  /**
   * Of the pods our watch saw vanish without being deleted, releases the ones that still exist, are controlled by
   * this Nginx and no longer match its selector. One GET each: the watch cannot tell a removed label from a
   * deletion. A candidate is settled only after it was looked at, so a failing GET leaves the rest for the retry.
   */
  private async releaseStrays(key: string, nginx: Nginx, report: ReconcileReport): Promise<void> {
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
  private async release(nginx: Nginx, pod: V1Pod, report: ReconcileReport): Promise<void> {
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

  /**
   * Writes status through the subresource. On a conflict our cached copy is behind, often only by our own last
   * status write that a slow watch has not brought yet: as the ReplicaSet controller does, it reads the Nginx from
   * the API server and writes once more over that, when it still has the spec the status was made for (same uid
   * and generation). 'conflict' when that does not settle it, 'gone' on 404.
   */
  private async writeStatus(
    key: string,
    nginx: Nginx,
    status: Nginx['status'],
  ): Promise<'written' | 'conflict' | 'gone'> {
    const { name, namespace } = nginx.metadata;
    const path = objectPath({ ...NGINXES, namespace }, name!);
    const put = async (over: Nginx) => {
      await this.deps.client.request({
        method: 'PUT',
        path: `${path}/status`,
        body: { ...over, status },
        accept: METADATA_ONLY,
      });
      this.pacing.acted(key);
      return 'written' as const;
    };
    const settle = (error: unknown) => {
      if (isConflict(error)) return 'conflict' as const;
      if (isNotFound(error)) return 'gone' as const;
      throw error;
    };
    try {
      return await put(nginx);
    } catch (error) {
      if (settle(error) === 'gone') return 'gone';
    }
    try {
      const fresh = await this.deps.client.request<Nginx>({ path });
      const sameSpec =
        fresh?.metadata?.uid === nginx.metadata.uid &&
        fresh.metadata.generation === nginx.metadata.generation;
      return sameSpec ? await put(fresh) : 'conflict';
    } catch (error) {
      return settle(error);
    }
  }
}

function earliest(...delays: (number | undefined)[]): number | undefined {
  const known = delays.filter((delay): delay is number => delay !== undefined);
  return known.length ? Math.min(...known) : undefined;
}
