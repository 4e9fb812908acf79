import type { V1Pod } from '@kubernetes/client-node';
import {
  DEFAULT_MAX_SURGE,
  DEFAULT_MAX_UNAVAILABLE,
  LABEL_REVISION,
  podTemplateOf,
  sameTemplate,
  scaledValue,
  type NginxPodTemplate,
  type NginxStrategy,
} from '@ngx/nginx-api';
import { compareForDeletion, isActive, isFinished, isReady } from './pod-plan.js';

export type RolloutDeleteReason =
  'scale-down' | 'pod-failed' | 'pod-succeeded' | 'rolling-update' | 'recreate';

export interface RolloutInput {
  /** spec.replicas. */
  replicas: number;
  strategy: NginxStrategy | undefined;
  /** The revision of the spec's template, and the template itself. */
  updateRevision: string;
  template: NginxPodTemplate;
  /** Every pod the Nginx controls, terminating and finished ones included. */
  pods: readonly V1Pod[];
  minReadySeconds: number;
  /** Epoch milliseconds. */
  now: number;
  /** Most pods created, and most deleted, in one sync. */
  burst: number;
  /** spec.paused: the template does not roll; missing pods copy the revision most pods run. */
  paused?: boolean;
  /**
   * The template cannot run (spec.config is not valid nginx, written past our API): held as if paused, and no pod
   * of it is ever made — missing pods copy the revision most pods run, if any.
   */
  invalid?: boolean;
}

export interface RolloutPlan {
  /** Pods to create now: of the update revision, or copies of `createLike` when set. */
  create: number;
  /** While paused mid-rollout: a pod of the revision most pods run, whose spec new pods copy. */
  createLike?: V1Pod;
  /** Pods to delete now, each with why. */
  delete: { pod: V1Pod; reason: RolloutDeleteReason }[];
  /** When the next ready pod becomes available (minReadySeconds), in ms from now: a sync is due then. */
  availableInMs?: number;
}

/** The bounds of a rolling update for `replicas`, as the Deployment controller resolves them. */
export function rollingBounds(
  strategy: NginxStrategy | undefined,
  replicas: number,
): { maxSurge: number; maxUnavailable: number } {
  const rolling = strategy?.rollingUpdate;
  const maxSurge = scaledValue(rolling?.maxSurge ?? DEFAULT_MAX_SURGE, replicas, 'up') ?? 0;
  let maxUnavailable = scaledValue(rolling?.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE, replicas, 'down') ?? 0;
  // Both 0 (a percentage rounded down to 0 with maxSurge 0) could never move: one pod may go, as in a Deployment.
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable: Math.min(maxUnavailable, replicas) };
}

/** When `pod` turned ready, in epoch ms, or undefined when it is not ready. */
function readySince(pod: V1Pod): number | undefined {
  const ready = pod.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  if (!ready) return undefined;
  const at = Date.parse(ready.lastTransitionTime as unknown as string);
  return Number.isNaN(at) ? 0 : at;
}

/** Whether `pod` has been ready for at least `minReadySeconds` (the Deployment controller's "available"). */
export function isAvailable(pod: V1Pod, minReadySeconds: number, now: number): boolean {
  if (!isReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  return (readySince(pod) ?? now) + minReadySeconds * 1000 <= now;
}

/**
 * Whether `pod` runs `revision`. A pod without the revision label was made before revisions existed: it runs the
 * image of its container with every other template field at its default, so it counts as the update revision when
 * that is all the template asks.
 */
export function runsRevision(pod: V1Pod, revision: string, template: NginxPodTemplate): boolean {
  const label = pod.metadata?.labels?.[LABEL_REVISION];
  if (label !== undefined) return label === revision;
  const image = pod.spec?.containers?.[0]?.image;
  return Boolean(image) && sameTemplate(template, podTemplateOf({ replicas: 0, image }));
}

const byDeletionOrder = (pods: readonly V1Pod[]) => [...pods].sort(compareForDeletion);

/**
 * Decides, from the cache alone, what moves the owned pods towards `replicas` pods of the update revision, with
 * the Deployment controller's guarantees counted over pods that are not terminating or finished:
 *
 * - RollingUpdate: never more than `replicas + maxSurge` pods, and old pods are deleted only while at least
 *   `replicas - maxUnavailable` pods stay available — first old pods that are not available (they count for
 *   nothing), then available ones, worst first. New pods are created while the total is below the surge bound.
 * - Recreate: every old pod is deleted, and no new one is created while any old pod still exists (terminating
 *   ones included).
 * - Over the surge bound (spec.replicas lowered mid-rollout), the surplus goes, old pods first.
 *
 * Finished pods are always deleted (and replaced). Creations and deletions are each capped at `burst` per sync.
 */
export function planRollout(input: RolloutInput): RolloutPlan {
  const { replicas, pods, burst, now, minReadySeconds } = input;
  const plan: RolloutPlan = {
    create: 0,
    delete: pods
      .filter((pod) => !pod.metadata?.deletionTimestamp && isFinished(pod))
      .map((pod) => ({ pod, reason: pod.status?.phase === 'Failed' ? 'pod-failed' : 'pod-succeeded' })),
  };
  const updated = (pod: V1Pod) => runsRevision(pod, input.updateRevision, input.template);
  const available = (pod: V1Pod) => isAvailable(pod, minReadySeconds, now);
  const active = pods.filter(isActive);
  const fresh = active.filter(updated);
  const old = active.filter((pod) => !updated(pod));
  plan.availableInMs = nextAvailableIn(active, minReadySeconds, now);
  const remove = (victims: readonly V1Pod[], reason: RolloutDeleteReason) =>
    plan.delete.push(
      ...victims.slice(0, Math.max(0, burst - plan.delete.length)).map((pod) => ({ pod, reason })),
    );

  if (input.strategy?.type === 'Recreate' && pods.some((pod) => !updated(pod))) {
    // Old pods, terminating ones included, all go before the first new one is made.
    remove(byDeletionOrder(old), 'recreate');
    return plan;
  }

  if (input.invalid && old.length === 0) {
    remove(byDeletionOrder(fresh).slice(0, Math.max(0, fresh.length - replicas)), 'scale-down');
    return plan;
  }

  if ((input.paused || input.invalid) && old.length > 0) {
    // Paused mid-rollout: scaling applies, to the revisions as they stand; nothing moves between them.
    const total = active.length;
    if (total > replicas)
      remove([...byDeletionOrder(old), ...byDeletionOrder(fresh)].slice(0, total - replicas), 'scale-down');
    if (total < replicas) {
      plan.create = Math.min(replicas - total, burst);
      if (input.invalid || old.length > fresh.length) plan.createLike = mostCommonRevision(old);
    }
    return plan;
  }

  if (old.length === 0) {
    // Nothing to roll: scale the update revision's pods to replicas.
    if (fresh.length < replicas) plan.create = Math.min(replicas - fresh.length, burst);
    else remove(byDeletionOrder(fresh).slice(0, fresh.length - replicas), 'scale-down');
    return plan;
  }

  const { maxSurge, maxUnavailable } = rollingBounds(input.strategy, replicas);
  const total = active.length;
  const maxTotal = replicas + maxSurge;
  if (total > maxTotal) {
    // Lowered replicas: back within the surge bound first, old pods first, the new ones' worst next.
    remove([...byDeletionOrder(old), ...byDeletionOrder(fresh)].slice(0, total - maxTotal), 'scale-down');
    return plan;
  }
  if (fresh.length < replicas) plan.create = Math.min(maxTotal - total, replicas - fresh.length, burst);

  const minAvailable = replicas - maxUnavailable;
  const availableCount = active.filter(available).length;
  const freshUnavailable = fresh.filter((pod) => !available(pod)).length;
  // Pods that may go without the new pods still coming up ever leaving fewer than minAvailable.
  const maxScaledDown = total - minAvailable - freshUnavailable;
  if (maxScaledDown <= 0) return plan;
  const [oldAvailable, oldUnavailable] = [old.filter(available), old.filter((pod) => !available(pod))];
  const cleanup = byDeletionOrder(oldUnavailable).slice(0, maxScaledDown);
  const scaleDown = byDeletionOrder(oldAvailable).slice(
    0,
    Math.max(0, Math.min(availableCount - minAvailable, maxScaledDown - cleanup.length)),
  );
  remove([...cleanup, ...scaleDown], 'rolling-update');
  return plan;
}

/** The newest pod of the revision most of `pods` run. */
function mostCommonRevision(pods: readonly V1Pod[]): V1Pod {
  const byRevision = new Map<string | undefined, V1Pod[]>();
  for (const pod of pods) {
    const revision = pod.metadata?.labels?.[LABEL_REVISION];
    byRevision.set(revision, [...(byRevision.get(revision) ?? []), pod]);
  }
  const [largest] = [...byRevision.values()].sort((a, b) => b.length - a.length);
  return byDeletionOrder(largest!)[0]!;
}

/** Milliseconds until the first ready-but-not-yet-available pod becomes available, if any. */
function nextAvailableIn(pods: readonly V1Pod[], minReadySeconds: number, now: number): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  let soonest: number | undefined;
  for (const pod of pods) {
    const since = readySince(pod);
    if (since === undefined) continue;
    const wait = since + minReadySeconds * 1000 - now;
    if (wait > 0 && (soonest === undefined || wait < soonest)) soonest = wait;
  }
  return soonest;
}
