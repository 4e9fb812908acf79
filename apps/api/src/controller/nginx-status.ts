import type { V1Pod } from '@kubernetes/client-node';
import {
  CONDITION_AVAILABLE,
  CONDITION_PROGRESSING,
  CONDITION_REPLICA_FAILURE,
  type Nginx,
  type NginxCondition,
  type NginxStatus,
} from '@ngx/nginx-api';
import { isActive, isReady } from './pod-plan.js';
import { selectorString } from './pod-template.js';

/** A pod creation or deletion the API server refused during this sync. */
export interface ReplicaFailure {
  reason: 'FailedCreate' | 'FailedDelete';
  message: string;
}

function condition(
  type: string,
  status: NginxCondition['status'],
  reason: string,
  message: string,
  generation: number | undefined,
  previous: NginxCondition[] | undefined,
  now: string,
): NginxCondition {
  const before = previous?.find((c) => c.type === type);
  // The transition time moves only when the status does, so an unchanged state rewrites nothing.
  const lastTransitionTime = before && before.status === status ? before.lastTransitionTime : now;
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  };
}

/**
 * The status an Nginx should show for its pods: counts, the selector, a short sentence, and the Available,
 * Progressing and (only while something fails) ReplicaFailure conditions.
 */
export function nginxStatus(
  nginx: Nginx,
  pods: readonly V1Pod[],
  refusal: ReplicaFailure | undefined,
  now: string,
): NginxStatus {
  const desired = nginx.spec.replicas;
  const active = pods.filter(isActive);
  const ready = active.filter(isReady).length;
  const generation = nginx.metadata.generation;
  const previous = nginx.status?.conditions;
  const failure = refusal && stableFailure(refusal, previous);

  const available = ready >= desired;
  const converged = active.length === desired && available;
  const progressingReason =
    active.length < desired
      ? 'ScalingUp'
      : active.length > desired
        ? 'ScalingDown'
        : converged
          ? 'ReplicasReady'
          : 'WaitingForReady';
  let message =
    desired === 0 && active.length === 0
      ? 'Scaled to 0 pods.'
      : `${ready} of ${desired} pod${desired === 1 ? '' : 's'} ready${active.length !== desired ? ` (${active.length} running)` : ''}.`;
  if (failure)
    message = `${message} ${failure.reason === 'FailedCreate' ? 'Creating' : 'Deleting'} pods failed: ${failure.message}`;

  const conditions = [
    condition(
      CONDITION_AVAILABLE,
      available ? 'True' : 'False',
      available ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
      `${ready} of ${desired} ready`,
      generation,
      previous,
      now,
    ),
    condition(
      CONDITION_PROGRESSING,
      converged ? 'False' : 'True',
      progressingReason,
      message,
      generation,
      previous,
      now,
    ),
  ];
  if (failure)
    conditions.push(
      condition(
        CONDITION_REPLICA_FAILURE,
        'True',
        failure.reason,
        failure.message,
        generation,
        previous,
        now,
      ),
    );

  return {
    replicas: active.length,
    readyReplicas: ready,
    availableReplicas: ready,
    observedGeneration: generation,
    selector: selectorString(nginx.metadata.name!),
    message: message.slice(0, 1024),
    conditions,
  };
}

/**
 * The failure as the status should report it: while the Nginx already reports a ReplicaFailure for the same
 * reason, that report's message is kept (as the ReplicaSet controller keeps its first error), so a refusal that
 * names each freshly generated pod does not rewrite the status on every retry.
 */
function stableFailure(failure: ReplicaFailure, previous: NginxCondition[] | undefined): ReplicaFailure {
  const reported = previous?.find((c) => c.type === CONDITION_REPLICA_FAILURE);
  return reported?.status === 'True' && reported.reason === failure.reason && reported.message
    ? { ...failure, message: reported.message }
    : failure;
}

/** Whether writing `next` would change anything (the controller writes status only when it does). */
export function statusChanged(current: NginxStatus | undefined, next: NginxStatus): boolean {
  return JSON.stringify(normalise(current ?? {})) !== JSON.stringify(normalise(next));
}

/**
 * Whether `status` reports an end state: every pod there and ready, or a failure. Such a status is written at once;
 * one that says the Nginx is still getting there may wait a moment and carry several pods' progress at once.
 */
export function isSettled(status: NginxStatus): boolean {
  return (status.conditions ?? []).some(
    (c) =>
      (c.type === CONDITION_PROGRESSING && c.status === 'False') ||
      (c.type === CONDITION_REPLICA_FAILURE && c.status === 'True'),
  );
}

function normalise(status: NginxStatus) {
  const conditions = [...(status.conditions ?? [])]
    .sort((a, b) => a.type.localeCompare(b.type))
    .map((c) => [c.type, c.status, c.reason, c.message, c.lastTransitionTime, c.observedGeneration]);
  return [
    status.replicas ?? 0,
    status.readyReplicas ?? 0,
    status.availableReplicas ?? 0,
    status.observedGeneration,
    status.selector,
    status.message,
    conditions,
  ];
}
