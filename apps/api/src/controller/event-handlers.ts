import type { V1Pod, V1PodDisruptionBudget, V1ResourceQuota } from '@kubernetes/client-node';
import { DeletedFinalStateUnknown, objectKey, type EventHandlers } from '@ngx/kube-runtime';
import {
  ANNOTATION_ABORT,
  ANNOTATION_PROMOTE,
  CONDITION_REPLICA_FAILURE,
  quantityValue,
  type Nginx,
  jsonEqual,
} from '@ngx/nginx-api';
import type { ReconcileTrigger } from './audited-reconcile.js';
import { disruptionBudgetStatus } from './owned-objects.js';
import { byNginxLabel, controllerOf, owningNginxKey } from '../kube/pod-index.js';

/**
 * What the informer handlers tell the controller. The host routes it: queue and expectations belong to the
 * current leadership term (none while standing by); the stray-pod record lives across terms.
 */
export interface ControllerEvents {
  /** Queues the Nginx now, or after `afterMs` (an earlier queueing is never postponed by a later one). */
  enqueue(nginxKey: string, trigger: ReconcileTrigger, afterMs?: number): void;
  creationObserved(nginxKey: string): void;
  deletionObserved(nginxKey: string, podKey: string): void;
  /** A pod this Nginx controls left the watch without being marked for deletion: maybe relabelled. */
  strayCandidate(nginxKey: string, pod: V1Pod): void;
  /** A pod is (back) in the watch: it is not a stray. */
  podInWatch(nginxKey: string, uid: string): void;
  /** The Nginx is gone: forget what was kept for it. */
  nginxGone(nginxKey: string): void;
}

/**
 * Whether an update of an Nginx calls for a sync. Only changes that alter what the reconcile does count — a
 * new generation (spec), a new object under the same name (uid), the start of its deletion, a canary's promote or
 * abort request (annotations) — plus resync
 * replays (the same object twice). Status-only updates, our own status writes among them, do not: they would
 * enqueue the key at once and so bypass the backoff of a failing sync.
 */
export function nginxNeedsSync(previous: Nginx, current: Nginx): boolean {
  if (previous === current) return true;
  const [before, after] = [previous.metadata, current.metadata];
  return (
    before.uid !== after.uid ||
    before.generation !== after.generation ||
    Boolean(before.deletionTimestamp) !== Boolean(after.deletionTimestamp) ||
    before.annotations?.[ANNOTATION_PROMOTE] !== after.annotations?.[ANNOTATION_PROMOTE] ||
    before.annotations?.[ANNOTATION_ABORT] !== after.annotations?.[ANNOTATION_ABORT]
  );
}

export function nginxEventHandlers(events: ControllerEvents): EventHandlers<Nginx> {
  return {
    add: (nginx) => events.enqueue(objectKey(nginx), 'nginx-added'),
    update: (previous, nginx) => {
      if (nginxNeedsSync(previous, nginx)) events.enqueue(objectKey(nginx), 'nginx-updated');
    },
    delete: (deleted) => {
      const key = deleted instanceof DeletedFinalStateUnknown ? deleted.key : objectKey(deleted);
      events.nginxGone(key);
      events.enqueue(key, 'nginx-deleted');
    },
  };
}

/** Pod events wake the owning Nginx and settle the expectations of its last sync. */
export function podEventHandlers(events: ControllerEvents): EventHandlers<V1Pod> {
  return {
    add: (pod) => {
      const owner = owningNginxKey(pod);
      if (!owner) return;
      if (controllerOf(pod)) events.creationObserved(owner);
      events.podInWatch(owner, pod.metadata!.uid!);
      events.enqueue(owner, 'pod-event');
    },
    update: (previous, pod) => {
      const owner = owningNginxKey(pod);
      if (owner && pod.metadata?.deletionTimestamp && !previous.metadata?.deletionTimestamp)
        events.deletionObserved(owner, objectKey(pod));
      const before = owningNginxKey(previous);
      if (before && before !== owner) events.enqueue(before, 'pod-event');
      if (owner) events.enqueue(owner, 'pod-event');
    },
    delete: (deleted) => {
      const pod = deleted instanceof DeletedFinalStateUnknown ? deleted.object : deleted;
      const owner = owningNginxKey(pod);
      if (!owner) return;
      events.deletionObserved(owner, objectKey(pod));
      // Not marked for deletion, yet gone from our label-filtered watch: maybe its label was removed.
      if (controllerOf(pod) && !pod.metadata?.deletionTimestamp) events.strayCandidate(owner, pod);
      events.enqueue(owner, 'pod-event');
    },
  };
}

/**
 * Whether a quota change may let a refused pod in: a limit lifted or raised, or usage fallen. Such a change
 * reaches no Nginx or pod, so without this an Nginx refused for a while would wait out its backoff (up to
 * 1000 s) after the quota was raised.
 */
export function quotaFreedRoom(previous: V1ResourceQuota, current: V1ResourceQuota): boolean {
  const room = (quota: V1ResourceQuota, resource: string) => {
    const hard = quota.status?.hard;
    if (!hard || !Object.hasOwn(hard, resource)) return Infinity;
    const used = quota.status?.used;
    return (
      quantityValue(hard[resource]!) -
      quantityValue(used && Object.hasOwn(used, resource) ? used[resource]! : '0')
    );
  };
  const resources = new Set([
    ...Object.keys(previous.status?.hard ?? {}),
    ...Object.keys(current.status?.hard ?? {}),
  ]);
  for (const resource of resources) {
    const [before, after] = [room(previous, resource), room(current, resource)];
    // A quantity we cannot read (the API server validates them, so hardly ever): any change may have freed room.
    if (Number.isNaN(before) || Number.isNaN(after)) return !jsonEqual(previous.status, current.status);
    if (after > before) return true;
  }
  return false;
}

/** An Nginx whose last sync was refused a pod creation (status `ReplicaFailure` with reason `FailedCreate`). */
export function refusedCreation(nginx: Nginx): boolean {
  return (nginx.status?.conditions ?? []).some(
    (c) => c.type === CONDITION_REPLICA_FAILURE && c.status === 'True' && c.reason === 'FailedCreate',
  );
}

/**
 * After a wake on a quota, when the Nginx is looked at again: kube-apiserver's quota admission reads quotas from its
 * own cache, which may not yet hold the status this event brought, and a create it refuses then would leave the
 * Nginx to its backoff (minutes, after a long refusal). Seen in CI: the wake's create, 6 ms after the raised limit
 * reached the quota's status, was refused against the old limit.
 */
export const QUOTA_WAKE_AGAIN_MS = [1000, 5000] as const;

/**
 * Quota events wake, at once and again shortly after (QUOTA_WAKE_AGAIN_MS), the Nginxes of the quota's namespace
 * whose pod creations were refused, when the quota may let them in now. `refusedIn` lists those Nginxes' keys.
 */
export function quotaEventHandlers(
  events: ControllerEvents,
  refusedIn: (namespace: string) => string[],
): EventHandlers<V1ResourceQuota> {
  const wake = (quota: V1ResourceQuota) => {
    const namespace = quota.metadata?.namespace;
    if (!namespace) return;
    for (const key of refusedIn(namespace)) {
      events.enqueue(key, 'quota-changed');
      for (const afterMs of QUOTA_WAKE_AGAIN_MS) events.enqueue(key, 'quota-changed', afterMs);
    }
  };
  return {
    update: (previous, quota) => {
      if (previous !== quota && quotaFreedRoom(previous, quota)) wake(quota);
    },
    delete: (deleted) => wake(deleted instanceof DeletedFinalStateUnknown ? deleted.object : deleted),
  };
}

type Labelled = { metadata?: { namespace?: string; generation?: number; labels?: Record<string, string> } };

/**
 * Events of what the controller makes besides pods (ControllerRevisions, ConfigMaps, the Service and its
 * EndpointSlices, the budget) wake the Nginx their label names: a deleted Service is made again, a new ready
 * endpoint reaches the status. `matters` narrows which updates count (all of them unless given).
 */
export function ownedEventHandlers<T extends Labelled>(
  events: ControllerEvents,
  options: { matters?: (previous: T, current: T) => boolean } = {},
): EventHandlers<T> {
  const wake = (object: T) => {
    const [key] = byNginxLabel(object);
    if (key) events.enqueue(key, 'owned-changed');
  };
  return {
    add: wake,
    update: (previous, object) => {
      if (!options.matters || options.matters(previous, object)) wake(object);
    },
    delete: (deleted) => wake(deleted instanceof DeletedFinalStateUnknown ? (deleted.object as T) : deleted),
  };
}

/**
 * Whether a budget's update matters to its Nginx: a new generation (its spec) or new figures of those the
 * Nginx's status shows. Its status is rewritten as pods come and go, often with the same figures, and those
 * pods wake the Nginx already; but the disruption controller may count a new spec after the Nginx's last sync,
 * and only the budget's own event then brings the new figures to the Nginx's status.
 */
export function budgetChangeMatters(
  previous: V1PodDisruptionBudget,
  current: V1PodDisruptionBudget,
): boolean {
  return (
    previous === current ||
    previous.metadata?.generation !== current.metadata?.generation ||
    !jsonEqual(disruptionBudgetStatus(previous), disruptionBudgetStatus(current))
  );
}
