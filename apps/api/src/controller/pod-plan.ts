import type { V1Pod } from '@kubernetes/client-node';

/** Pods that count toward the desired number: not being deleted and not finished (Failed/Succeeded). */
export function isActive(pod: V1Pod): boolean {
  return !pod.metadata?.deletionTimestamp && !isFinished(pod);
}

export function isFinished(pod: V1Pod): boolean {
  return pod.status?.phase === 'Failed' || pod.status?.phase === 'Succeeded';
}

export function isReady(pod: V1Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

/**
 * Why the scheduler could not place `pod` (its PodScheduled condition False with reason Unschedulable: no node fits
 * its selector, affinity, tolerations or spread, or none has room), or undefined when it is placed or not tried yet.
 */
export function unschedulableMessage(pod: V1Pod): string | undefined {
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  return scheduled?.status === 'False' && scheduled.reason === 'Unschedulable'
    ? (scheduled.message ?? 'Unschedulable')
    : undefined;
}

function restarts(pod: V1Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((sum, status) => sum + (status.restartCount ?? 0), 0);
}

const PHASE_RANK: Record<string, number> = { Pending: 0, Unknown: 1, Running: 2 };

/**
 * Orders pods so the ones to delete first come first, as the ReplicaSet controller does: unscheduled before
 * scheduled, Pending before Unknown before Running, not ready before ready, more restarts before fewer, newer
 * before older; ties broken by name for a stable order.
 */
export function compareForDeletion(a: V1Pod, b: V1Pod): number {
  const scheduled = Number(Boolean(a.spec?.nodeName)) - Number(Boolean(b.spec?.nodeName));
  if (scheduled) return scheduled;
  const phase =
    (PHASE_RANK[a.status?.phase ?? 'Pending'] ?? 0) - (PHASE_RANK[b.status?.phase ?? 'Pending'] ?? 0);
  if (phase) return phase;
  const ready = Number(isReady(a)) - Number(isReady(b));
  if (ready) return ready;
  const restartDiff = restarts(b) - restarts(a);
  if (restartDiff) return restartDiff;
  const created =
    Date.parse(b.metadata?.creationTimestamp as unknown as string) -
    Date.parse(a.metadata?.creationTimestamp as unknown as string);
  if (created) return created;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

export type DeleteReason = 'scale-down' | 'pod-failed' | 'pod-succeeded';

export interface PodPlan {
  /** How many pods to create now (at most the burst). */
  create: number;
  /** Pods to delete now, each with why. */
  delete: { pod: V1Pod; reason: DeleteReason }[];
  /** Active pods counted. */
  active: number;
}

/**
 * Decides, from the cache alone, what brings the owned pods to `desired`: finished pods are deleted (and will
 * be replaced), missing pods created, surplus pods deleted in `compareForDeletion` order. Creations and
 * scale-down deletions are capped at `burst` per sync, like the ReplicaSet controller's burstReplicas.
 */
export function planPods(desired: number, pods: readonly V1Pod[], burst = 500): PodPlan {
  const finished = pods.filter((pod) => !pod.metadata?.deletionTimestamp && isFinished(pod));
  const active = pods.filter(isActive);
  const plan: PodPlan = {
    create: 0,
    delete: finished.map((pod) => ({
      pod,
      reason: pod.status?.phase === 'Failed' ? ('pod-failed' as const) : ('pod-succeeded' as const),
    })),
    active: active.length,
  };
  const diff = active.length - desired;
  if (diff < 0) plan.create = Math.min(-diff, burst);
  if (diff > 0) {
    const victims = [...active].sort(compareForDeletion).slice(0, Math.min(diff, burst));
    plan.delete.push(...victims.map((pod) => ({ pod, reason: 'scale-down' as const })));
  }
  return plan;
}

/**
 * Splits `total` creations into slow-start batches of 1, 2, 4, 8 … (the last one smaller), so a request the
 * API server refuses (quota, admission) fails once instead of `total` times.
 */
export function slowStartBatches(total: number, initial = 1): number[] {
  const batches: number[] = [];
  let size = Math.max(1, initial);
  for (let remaining = total; remaining > 0; remaining -= batches[batches.length - 1]!) {
    batches.push(Math.min(size, remaining));
    size *= 2;
  }
  return batches;
}
