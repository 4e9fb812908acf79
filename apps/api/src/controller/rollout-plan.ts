import type { V1Pod } from '@kubernetes/client-node';
import {
  DEFAULT_MAX_SURGE,
  DEFAULT_MAX_UNAVAILABLE,
  LABEL_REVISION,
  podTemplateOf,
  sameTemplate,
  scaledValue,
  type IntOrPercent,
  type NginxPodTemplate,
  type NginxStrategy,
} from '@ngx/nginx-api';
import { compareForDeletion, isActive, isFinished, isReady } from './pod-plan.js';

export type RolloutDeleteReason =
  'scale-down' | 'pod-failed' | 'pod-succeeded' | 'rolling-update' | 'recreate' | 'canary' | 'rollback';

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
export function rollingBounds(strategy: NginxStrategy | undefined, replicas: number): MoveBounds {
  const rolling = strategy?.rollingUpdate;
  return resolveBounds(
    rolling?.maxSurge ?? DEFAULT_MAX_SURGE,
    rolling?.maxUnavailable ?? DEFAULT_MAX_UNAVAILABLE,
    replicas,
  );
}

/** How far a move between revisions may go above spec.replicas, and below it in available pods. */
export interface MoveBounds {
  maxSurge: number;
  maxUnavailable: number;
}

/** maxSurge (rounded up) and maxUnavailable (rounded down) of `replicas`, as the Deployment controller resolves them. */
export function resolveBounds(surge: IntOrPercent, unavailable: IntOrPercent, replicas: number): MoveBounds {
  const maxSurge = scaledValue(surge, replicas, 'up') ?? 0;
  let maxUnavailable = scaledValue(unavailable, replicas, 'down') ?? 0;
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

export const byDeletionOrder = (pods: readonly V1Pod[]) => [...pods].sort(compareForDeletion);

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

  const move = boundedMove({
    replicas,
    bounds: rollingBounds(input.strategy, replicas),
    groups: [{ pods: fresh, target: replicas }],
    others: old,
    available,
    burst,
  });
  plan.create = move.create[0]!;
  remove(move.scaleDown, 'scale-down');
  remove(move.remove, 'rolling-update');
  return plan;
}

/** Pods of one revision a move aims for `target` of. */
export interface MoveGroup {
  /** Active pods (not terminating, not finished) of the revision. */
  pods: readonly V1Pod[];
  target: number;
}

export interface BoundedMove {
  /** Pods to create per group, in the order of the groups. */
  create: number[];
  /** Surplus over the surge bound (replicas lowered mid-move): others first, then pods above their targets. */
  scaleDown: V1Pod[];
  /** Pods leaving within the bounds: those of `others` and those above their group's target. */
  remove: V1Pod[];
}

/**
 * One step of a move of the active pods towards each group's target (and none of `others`), with the Deployment
 * controller's guarantees: never more than `replicas + maxSurge` pods, and pods leave only while at least
 * `replicas - maxUnavailable` stay available — first those not available (they count for nothing), then available
 * ones, worst first; `others` go before pods above their group's target. Groups are filled in their order while the
 * total is below the surge bound. Over the surge bound, only the surplus goes. Creations are capped at `burst`
 * (deletions are capped by the caller).
 */
export function boundedMove(input: {
  replicas: number;
  bounds: MoveBounds;
  groups: readonly MoveGroup[];
  others: readonly V1Pod[];
  available: (pod: V1Pod) => boolean;
  burst: number;
}): BoundedMove {
  const { replicas, groups, available, burst } = input;
  const { maxSurge, maxUnavailable } = input.bounds;
  const move: BoundedMove = { create: groups.map(() => 0), scaleDown: [], remove: [] };
  const surplus = groups.map((g) => byDeletionOrder(g.pods).slice(0, Math.max(0, g.pods.length - g.target)));
  const kept = groups.flatMap((g, i) => g.pods.filter((pod) => !surplus[i]!.includes(pod)));
  const leaving = [...byDeletionOrder(input.others), ...surplus.flat()];
  const total = input.others.length + groups.reduce((sum, g) => sum + g.pods.length, 0);
  const maxTotal = replicas + maxSurge;
  if (total > maxTotal) {
    move.scaleDown = [...leaving, ...byDeletionOrder(kept)].slice(0, total - maxTotal);
    return move;
  }
  let room = Math.min(maxTotal - total, burst);
  groups.forEach((g, i) => {
    const want = Math.min(room, Math.max(0, g.target - g.pods.length));
    move.create[i] = want;
    room -= want;
  });

  const minAvailable = replicas - maxUnavailable;
  const availableCount = [...kept, ...leaving].filter(available).length;
  const keptUnavailable = kept.filter((pod) => !available(pod)).length;
  // Pods that may go without the kept pods still coming up ever leaving fewer than minAvailable.
  const maxScaledDown = total - minAvailable - keptUnavailable;
  if (maxScaledDown <= 0) return move;
  const cleanup = leaving.filter((pod) => !available(pod)).slice(0, maxScaledDown);
  const scaleDown = leaving
    .filter(available)
    .slice(0, Math.max(0, Math.min(availableCount - minAvailable, maxScaledDown - cleanup.length)));
  move.remove = [...cleanup, ...scaleDown];
  return move;
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
export function nextAvailableIn(
  pods: readonly V1Pod[],
  minReadySeconds: number,
  now: number,
): number | undefined {
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
