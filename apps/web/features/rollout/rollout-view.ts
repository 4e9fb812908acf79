import {
  CONDITION_PROGRESSING,
  REASON_DEADLINE_EXCEEDED,
  REASON_INVALID_CONFIG,
  REASON_PAUSED,
  REASON_ROLLED_BACK,
  type LivePod,
  type Nginx,
} from '@ngx/nginx-api';

/** Where a rollout stands, as the UI names it (also the `data-state` of the rollout badge). */
export type RolloutState =
  | 'progressing'
  | 'complete'
  | 'paused'
  | 'deadline-exceeded'
  | 'invalid-config'
  | 'aborted'
  | 'bluegreen-aborted'
  | 'rolled-back'
  | 'unknown';

/** The words shown for each state. */
export const ROLLOUT_STATE_LABELS: Record<RolloutState, string> = {
  progressing: 'Progressing',
  complete: 'Complete',
  paused: 'Paused',
  'deadline-exceeded': 'Deadline exceeded',
  'invalid-config': 'Invalid config',
  aborted: 'Canary aborted',
  'bluegreen-aborted': 'Blue-green aborted',
  'rolled-back': 'Rolled back',
  unknown: 'Unknown',
};

/** One Nginx's rollout, derived from its spec, status and (when known) its live pods. */
export interface RolloutView {
  state: RolloutState;
  /** Pods of the update revision (status.updatedReplicas). */
  updated: number;
  /** Pods ready for minReadySeconds (status.availableReplicas). */
  available: number;
  /** spec.replicas. */
  desired: number;
  /** status.readyReplicas. */
  ready: number;
  /** Pods that do not run the update revision: from the live pods when given (terminating ones count), else status. */
  oldPods: number;
  currentRevision: string | undefined;
  updateRevision: string | undefined;
  /** The controller's sentence (status.message, else the Progressing condition's message), or undefined. */
  message: string | undefined;
}

/**
 * The rollout of `nginx`. The Progressing condition decides InvalidConfig, RolledBack, ProgressDeadlineExceeded
 * (all False) and Paused (Unknown); a canary of the update revision that was aborted is "aborted", a blue-green one "bluegreen-aborted". Otherwise "complete" is guaranteed only when the controller has observed the current
 * generation, updated = available = desired, and no pod of another revision remains — in the status and, when
 * `pods` is given, among the live pods too (pods without a revision label are left to the status, which alone
 * knows whether they match the template). Anything else with a status is "progressing"; no status is "unknown".
 */
export function rolloutViewOf(nginx: Nginx, pods?: readonly LivePod[]): RolloutView {
  const status = nginx.status ?? {};
  const desired = nginx.spec?.replicas ?? 0;
  const updated = status.updatedReplicas ?? 0;
  const available = status.availableReplicas ?? 0;
  const updateRevision = status.updateRevision;
  const statusOld = Math.max(0, (status.replicas ?? 0) - updated);
  const labelledOld =
    pods && updateRevision
      ? pods.filter((p) => p.revision !== null && p.revision !== updateRevision).length
      : 0;
  const progressing = status.conditions?.find((c) => c.type === CONDITION_PROGRESSING);
  const observed =
    status.observedGeneration !== undefined &&
    (nginx.metadata.generation === undefined || status.observedGeneration >= nginx.metadata.generation);

  let state: RolloutState;
  if (progressing?.status === 'False' && progressing.reason === REASON_INVALID_CONFIG)
    state = 'invalid-config';
  else if (progressing?.status === 'False' && progressing.reason === REASON_ROLLED_BACK)
    state = 'rolled-back';
  else if (status.canary?.phase === 'Aborted' && status.canary.revision === updateRevision) state = 'aborted';
  else if (status.blueGreen?.phase === 'Aborted' && status.blueGreen.revision === updateRevision)
    state = 'bluegreen-aborted';
  else if (progressing?.status === 'False' && progressing.reason === REASON_DEADLINE_EXCEEDED)
    state = 'deadline-exceeded';
  else if (progressing?.reason === REASON_PAUSED) state = 'paused';
  else if (observed && updated === desired && available === desired && statusOld === 0 && labelledOld === 0)
    state = 'complete';
  else if (status.observedGeneration === undefined && !progressing) state = 'unknown';
  else state = 'progressing';

  return {
    state,
    updated,
    available,
    desired,
    ready: status.readyReplicas ?? 0,
    oldPods: Math.max(statusOld, labelledOld),
    currentRevision: status.currentRevision,
    updateRevision,
    message: status.message || progressing?.message || undefined,
  };
}

/**
 * Whether the list should mark the Nginx "Rolling out": its rollout is progressing or paused while pods of
 * another revision still run (a plain scale-up or a fresh Nginx is not a rollout).
 */
export function isMidRollout(view: RolloutView): boolean {
  return (view.state === 'progressing' || view.state === 'paused') && view.oldPods > 0;
}
