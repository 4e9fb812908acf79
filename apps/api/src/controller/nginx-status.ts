import type { V1Pod } from '@kubernetes/client-node';
import {
  CONDITION_AVAILABLE,
  CONDITION_PROGRESSING,
  CONDITION_REPLICA_FAILURE,
  DEFAULT_PROGRESS_DEADLINE_SECONDS,
  LABEL_REVISION,
  REASON_DEADLINE_EXCEEDED,
  REASON_INVALID_CONFIG,
  REASON_PAUSED,
  REASON_CANARY,
  REASON_BLUE_GREEN,
  REASON_BLUE_GREEN_ABORTED,
  REASON_BLUE_GREEN_PAUSED,
  REASON_CANARY_ABORTED,
  REASON_CANARY_PAUSED,
  REASON_ROLLED_BACK,
  configErrors,
  REASON_ROLLING_UPDATE,
  podTemplateOf,
  revisionOf,
  type Nginx,
  type NginxBlueGreenStatus,
  type NginxCanaryStatus,
  type NginxCondition,
  type NginxPodTemplate,
  type NginxDisruptionBudgetStatus,
  type NginxIngressStatus,
  SECRET_NOT_FOUND,
  type NginxServiceStatus,
  type NginxStatus,
  jsonEqual,
} from '@ngx/nginx-api';
import { isActive, isReady, unschedulableMessage } from './pod-plan.js';
import { isAvailable, runsRevision } from './rollout-plan.js';
import { selectorString } from './pod-builder.js';

/** A pod creation or deletion the API server refused during this sync. */
export interface ReplicaFailure {
  /** SecretNotFound (SECRET_NOT_FOUND): spec.tls's Secret is missing, so no pod was asked for (issue 34). */
  reason: 'FailedCreate' | 'FailedDelete' | typeof SECRET_NOT_FOUND;
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

/** What the reconcile knows of the rollout besides the pods: the spec's revision, and the clock. */
export interface RolloutView {
  updateRevision: string;
  template: NginxPodTemplate;
  /** Why the template cannot run (its config is not valid nginx), or undefined. */
  invalid?: string;
  /** Epoch milliseconds. */
  now: number;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * Whether the rollout moved since `previous` was written — more pods updated or available, fewer old ones, a new
 * revision or generation to roll to — which restarts the progress deadline, as the Deployment controller's
 * Progressing condition does.
 */
function madeProgress(previous: NginxStatus | undefined, next: NginxStatus): boolean {
  if (!previous) return true;
  const old = (status: NginxStatus) => (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (
    previous.updateRevision !== next.updateRevision ||
    previous.observedGeneration !== next.observedGeneration ||
    previous.canary?.step !== next.canary?.step ||
    previous.canary?.phase !== next.canary?.phase ||
    previous.blueGreen?.phase !== next.blueGreen?.phase ||
    previous.blueGreen?.activeRevision !== next.blueGreen?.activeRevision ||
    (next.updatedReplicas ?? 0) > (previous.updatedReplicas ?? 0) ||
    (next.availableReplicas ?? 0) > (previous.availableReplicas ?? 0) ||
    old(next) < old(previous)
  );
}

/** What the owned Service, budget and Ingress add to the Nginx's status (each absent when there is none). */
export interface OwnedStatus {
  service?: NginxServiceStatus;
  disruptionBudget?: NginxDisruptionBudgetStatus;
  ingress?: NginxIngressStatus;
}

/**
 * The status an Nginx should show for its pods: counts (updated: of the spec's revision; available: ready for
 * minReadySeconds), the revisions, the selector, a short sentence, and the Available, Progressing and (only while
 * something fails) ReplicaFailure conditions. Progressing carries `lastUpdateTime`, the rollout's last progress:
 * when nothing moved for progressDeadlineSeconds short of the goal, it turns False with ProgressDeadlineExceeded —
 * or, with spec.rollbackOnFailure and a stable revision to go back to, with RolledBack (held for this generation:
 * see rollingBack). Strategy Canary: `canary` (the planner's status.canary) is carried, and Progressing tells its
 * step; a canary waiting (a pause, an analysis) is not stalled, a Paused one is Unknown, an Aborted one False.
 * Strategy BlueGreen: `blueGreen` likewise; a preview that is ready (waiting for its promotion or analysis) is not
 * stalled.
 */
export function nginxStatus(
  nginx: Nginx,
  pods: readonly V1Pod[],
  refusal: ReplicaFailure | undefined,
  now: string,
  {
    view = rolloutView(nginx, Date.parse(now)),
    owned = {},
    canary,
    blueGreen,
  }: {
    /** What the reconcile read of the rollout (computed from `nginx` at `now` when not given). */
    view?: RolloutView;
    /** The owned objects' status as the sync left it. */
    owned?: OwnedStatus;
    /** Strategy Canary: the planner's status.canary. */
    canary?: NginxCanaryStatus;
    /** Strategy BlueGreen: the planner's status.blueGreen. */
    blueGreen?: NginxBlueGreenStatus;
  } = {},
): NginxStatus {
  const counts = countPods(nginx, pods, view);
  const previous = nginx.status?.conditions;
  const failure = refusal && stableFailure(refusal, previous);
  const status = statusFields(nginx, counts, view, owned, canary, blueGreen);
  const progress = progressOf(nginx, status, counts, view, canary, blueGreen, now);
  const message = progressMessage(
    nginx,
    progress,
    view,
    podsMessage(nginx, counts, view, canary, blueGreen, failure),
  );
  const generation = nginx.metadata.generation;
  const progressing = condition(
    CONDITION_PROGRESSING,
    ...progressingState(counts, progress, view),
    message,
    generation,
    previous,
    now,
  );
  const conditions = [
    condition(
      CONDITION_AVAILABLE,
      counts.available ? 'True' : 'False',
      counts.available ? 'MinimumReplicasAvailable' : 'MinimumReplicasUnavailable',
      `${counts.availableCount} of ${nginx.spec.replicas} available`,
      generation,
      previous,
      now,
    ),
    counts.converged ? progressing : { ...progressing, lastUpdateTime: progress.lastProgress },
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
  return { ...status, message: message.slice(0, 1024), conditions };
}

/** The Nginx's active pods counted against the spec and the update revision. */
interface PodCounts {
  active: V1Pod[];
  ready: number;
  /** Ready for minReadySeconds. */
  availableCount: number;
  /** Of the update revision. */
  updated: V1Pod[];
  /** At least spec.replicas available. */
  available: boolean;
  /** Every active pod runs the update revision. */
  rolledOut: boolean;
  /** spec.replicas pods, all available and rolled out. */
  converged: boolean;
  /** What Progressing says while nothing overrides it (see progressingState). */
  progressingReason: string;
}

function countPods(nginx: Nginx, pods: readonly V1Pod[], view: RolloutView): PodCounts {
  const desired = nginx.spec.replicas;
  const minReadySeconds = nginx.spec.minReadySeconds ?? 0;
  const active = pods.filter(isActive);
  const ready = active.filter(isReady).length;
  const availableCount = active.filter((pod) => isAvailable(pod, minReadySeconds, view.now)).length;
  const updated = active.filter((pod) => runsRevision(pod, view.updateRevision, view.template));
  const available = availableCount >= desired;
  const rolledOut = updated.length === active.length;
  const converged = active.length === desired && available && rolledOut;
  const progressingReason = !rolledOut
    ? REASON_ROLLING_UPDATE
    : active.length < desired
      ? 'ScalingUp'
      : active.length > desired
        ? 'ScalingDown'
        : converged
          ? 'ReplicasReady'
          : 'WaitingForReady';
  return { active, ready, availableCount, updated, available, rolledOut, converged, progressingReason };
}

/** The status without its message and conditions: counts, revisions, the owned objects' parts, the canary. */
function statusFields(
  nginx: Nginx,
  counts: PodCounts,
  view: RolloutView,
  owned: OwnedStatus,
  canary: NginxCanaryStatus | undefined,
  blueGreen: NginxBlueGreenStatus | undefined,
): NginxStatus {
  const { active, updated, converged } = counts;
  return {
    replicas: active.length,
    updatedReplicas: updated.length,
    readyReplicas: counts.ready,
    availableReplicas: counts.availableCount,
    observedGeneration: nginx.metadata.generation,
    currentRevision: converged
      ? view.updateRevision
      : (nginx.status?.currentRevision ?? commonRevision(active) ?? view.updateRevision),
    updateRevision: view.updateRevision,
    ...(owned.service ? { service: owned.service } : {}),
    ...(owned.disruptionBudget ? { disruptionBudget: owned.disruptionBudget } : {}),
    ...(owned.ingress ? { ingress: owned.ingress } : {}),
    selector: selectorString(nginx.metadata.name!),
    ...(canary ? { canary } : {}),
    ...(blueGreen ? { blueGreen } : {}),
  };
}

/** The sentence about the pods: how many are ready, the rollout's direction, a refusal, unschedulable pods. */
function podsMessage(
  nginx: Nginx,
  counts: PodCounts,
  view: RolloutView,
  canary: NginxCanaryStatus | undefined,
  blueGreen: NginxBlueGreenStatus | undefined,
  failure: ReplicaFailure | undefined,
): string {
  const desired = nginx.spec.replicas;
  const { active, updated, rolledOut } = counts;
  let message =
    desired === 0 && active.length === 0
      ? 'Scaled to 0 pods.'
      : `${counts.ready} of ${plural(desired, 'pod')} ready${active.length !== desired ? ` (${active.length} running)` : ''}.`;
  // Aborted or rolled back, the pods go the other way: the update revision is the one being left.
  const heldBack =
    (canary?.phase === 'Aborted' && canary.revision === view.updateRevision) ||
    (blueGreen?.phase === 'Aborted' && blueGreen.revision === view.updateRevision) ||
    rollingBack(nginx);
  if (!rolledOut && heldBack)
    message = `${message} Going back: ${active.length - updated.length} of ${desired} on the stable revision.`;
  else if (!rolledOut) message = `${message} Rolling out: ${updated.length} of ${desired} updated.`;
  if (failure?.reason === SECRET_NOT_FOUND) message = `${message} ${failure.message}`;
  else if (failure)
    message = `${message} ${failure.reason === 'FailedCreate' ? 'Creating' : 'Deleting'} pods failed: ${failure.message}`;
  const unschedulable = active.map(unschedulableMessage).filter((m) => m !== undefined);
  if (unschedulable.length)
    message = `${message} ${plural(unschedulable.length, 'pod')} cannot be scheduled: ${unschedulable[0]}`;
  return message;
}

/** Where the rollout stands against its progress deadline. */
interface Progress {
  /** The rollout's last progress (Progressing's lastUpdateTime). */
  lastProgress: string;
  /** The previous Progressing condition. */
  before: NginxCondition | undefined;
  deadlineSeconds: number;
  /** spec.paused holds a rollout that has something to roll. */
  paused: boolean;
  /** The canary of the update revision while it is rolling out. */
  liveCanary: NginxCanaryStatus | undefined;
  /** The blue-green rollout of the update revision while it is rolling out. */
  liveBlueGreen: NginxBlueGreenStatus | undefined;
  /** spec.strategy.canary.steps' count. */
  steps: number;
  /** No progress for progressDeadlineSeconds, and nothing waited for. */
  stalled: boolean;
  /** spec.rollbackOnFailure sends (or sent) the pods back to the stable revision. */
  rolledBack: boolean;
  /** The stable revision (status.currentRevision). */
  stable: string | undefined;
}

function progressOf(
  nginx: Nginx,
  status: NginxStatus,
  counts: PodCounts,
  view: RolloutView,
  canary: NginxCanaryStatus | undefined,
  blueGreen: NginxBlueGreenStatus | undefined,
  now: string,
): Progress {
  const { converged, rolledOut } = counts;
  const before = nginx.status?.conditions?.find((c) => c.type === CONDITION_PROGRESSING);
  const lastProgress =
    madeProgress(nginx.status, status) || !before?.lastUpdateTime ? now : before.lastUpdateTime;
  const deadlineSeconds = nginx.spec.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
  const paused = nginx.spec.paused === true && !rolledOut && !view.invalid;
  const liveCanary = canary?.revision === view.updateRevision && !rolledOut ? canary : undefined;
  const steps = nginx.spec.strategy?.canary?.steps ?? [];
  const liveBlueGreen = blueGreen?.revision === view.updateRevision && !rolledOut ? blueGreen : undefined;
  const waiting =
    (liveCanary !== undefined &&
      (liveCanary.phase !== 'Progressing' ||
        Boolean(steps[liveCanary.step]?.pause || steps[liveCanary.step]?.analysis))) ||
    (liveBlueGreen !== undefined &&
      (liveBlueGreen.phase === 'Paused' ||
        liveBlueGreen.phase === 'Aborted' ||
        liveBlueGreen.previewReadyAt !== undefined));
  // As a Deployment's: a paused rollout is not stalled; the deadline counts again from the resume.
  const stalled =
    !converged && !paused && !waiting && view.now - Date.parse(lastProgress) >= deadlineSeconds * 1000;
  const stable = status.currentRevision;
  const rolledBack =
    !converged &&
    nginx.spec.rollbackOnFailure === true &&
    stable !== undefined &&
    stable !== view.updateRevision &&
    (stalled || rollingBack(nginx));
  return {
    lastProgress,
    before,
    deadlineSeconds,
    paused,
    liveCanary,
    liveBlueGreen,
    steps: steps.length,
    stalled,
    rolledBack,
    stable,
  };
}

/** The status message: the pods' sentence with the rollout's state around it (paused, canary, rolled back…). */
function progressMessage(nginx: Nginx, progress: Progress, view: RolloutView, podsSentence: string): string {
  const { liveCanary, liveBlueGreen, rolledBack, deadlineSeconds } = progress;
  let message = podsSentence;
  if (progress.paused) message = `${message} Paused.`;
  if (view.invalid) message = `${message} Not rolling out spec.config: ${view.invalid}`;
  if (liveCanary && !rolledBack) message = `${canarySentence(liveCanary, progress.steps)} ${message}`;
  if (liveBlueGreen && !rolledBack) message = `${blueGreenSentence(liveBlueGreen)} ${message}`;
  if (rolledBack) {
    const cause = rollingBack(nginx)
      ? (progress.before?.message.match(/^Rolled back to \S+: (.*?)\. /)?.[1] ?? 'no progress')
      : `no progress for ${deadlineSeconds} s rolling out ${view.updateRevision}`;
    message = `Rolled back to ${progress.stable}: ${cause}. ${message}`;
  } else if (progress.stalled) message = `${message} No progress for ${deadlineSeconds} s.`;
  return message;
}

/** The Progressing condition's status and reason. */
function progressingState(
  counts: PodCounts,
  progress: Progress,
  view: RolloutView,
): [NginxCondition['status'], string] {
  const { liveCanary, liveBlueGreen } = progress;
  if (view.invalid) return ['False', REASON_INVALID_CONFIG];
  if (progress.rolledBack) return ['False', REASON_ROLLED_BACK];
  if (progress.paused) return ['Unknown', REASON_PAUSED];
  if (liveCanary?.phase === 'Aborted') return ['False', REASON_CANARY_ABORTED];
  if (liveCanary?.phase === 'Paused') return ['Unknown', REASON_CANARY_PAUSED];
  if (liveBlueGreen?.phase === 'Aborted') return ['False', REASON_BLUE_GREEN_ABORTED];
  if (liveBlueGreen?.phase === 'Paused') return ['Unknown', REASON_BLUE_GREEN_PAUSED];
  if (progress.stalled) return ['False', REASON_DEADLINE_EXCEEDED];
  if (counts.converged) return ['False', counts.progressingReason];
  if (liveBlueGreen) return ['True', REASON_BLUE_GREEN];
  return ['True', liveCanary ? REASON_CANARY : counts.progressingReason];
}

/**
 * Whether spec.rollbackOnFailure already sent this generation's pods back to status.currentRevision: the last
 * status says RolledBack for the spec's generation. Held until the spec changes; the spec itself is never written.
 */
export function rollingBack(nginx: Nginx): boolean {
  const progressing = nginx.status?.conditions?.find((c) => c.type === CONDITION_PROGRESSING);
  return (
    nginx.spec.rollbackOnFailure === true &&
    progressing?.reason === REASON_ROLLED_BACK &&
    progressing.observedGeneration === nginx.metadata.generation
  );
}

/** "canary step 2/5: 20% on <rev>." and why it waits or stopped. */
function canarySentence(canary: NginxCanaryStatus, steps: number): string {
  const where =
    canary.step >= steps
      ? `canary past its last step: ${canary.weight}% on ${canary.revision}.`
      : `canary step ${canary.step + 1}/${steps}: ${canary.weight}% on ${canary.revision}.`;
  return canary.message ? `${where} ${canary.message}` : where;
}

/** "blue-green: previewing <rev> beside <active> (active)." and why it waits or stopped. */
function blueGreenSentence(blueGreen: NginxBlueGreenStatus): string {
  const where =
    blueGreen.activeRevision === blueGreen.revision
      ? `blue-green: ${blueGreen.revision} active (${blueGreen.phase}).`
      : `blue-green: previewing ${blueGreen.revision}, ${blueGreen.activeRevision} active (${blueGreen.phase}).`;
  return blueGreen.message ? `${where} ${blueGreen.message}` : where;
}

/** The spec's revision, as the status and the rollout plan see it. */
export function rolloutView(nginx: Nginx, now: number): RolloutView {
  const template = podTemplateOf(nginx.spec);
  const [problem] = template.config === undefined ? [] : configErrors(template.config);
  return {
    template,
    updateRevision: revisionOf(template),
    now,
    ...(problem ? { invalid: problem.message.replace(/^Invalid value: "…": /, '') } : {}),
  };
}

/**
 * When a status that is still rolling out or scaling should be looked at again for the progress deadline, in ms
 * from `now`; undefined when the status is settled.
 */
export function deadlineIn(nginx: Nginx, status: NginxStatus, now: number): number | undefined {
  const progressing = status.conditions?.find((c) => c.type === CONDITION_PROGRESSING);
  if (progressing?.status !== 'True' || !progressing.lastUpdateTime) return undefined;
  const deadlineSeconds = nginx.spec.progressDeadlineSeconds ?? DEFAULT_PROGRESS_DEADLINE_SECONDS;
  return Math.max(0, Date.parse(progressing.lastUpdateTime) + deadlineSeconds * 1000 - now);
}

/** The revision every one of `pods` carries, if they agree (the starting point of a rollout seen mid-way). */
function commonRevision(pods: readonly V1Pod[]): string | undefined {
  const revisions = new Set(pods.map((pod) => pod.metadata?.labels?.[LABEL_REVISION]));
  const [only] = revisions;
  return revisions.size === 1 ? only : undefined;
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
  return !jsonEqual(normalise(current ?? {}), normalise(next));
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

/** The pod counts `status` reports, as one text: equal while none of them moves. */
export function podCounts(status: NginxStatus): string {
  return `${status.replicas}/${status.updatedReplicas}/${status.readyReplicas}/${status.availableReplicas}`;
}

function normalise(status: NginxStatus) {
  const conditions = [...(status.conditions ?? [])]
    .sort((a, b) => a.type.localeCompare(b.type))
    .map((c) => [
      c.type,
      c.status,
      c.reason,
      c.message,
      c.lastTransitionTime,
      c.lastUpdateTime,
      c.observedGeneration,
    ]);
  return [
    status.replicas ?? 0,
    status.updatedReplicas ?? 0,
    status.currentRevision,
    status.updateRevision,
    status.service ? [status.service.name, status.service.clusterIP, status.service.readyEndpoints] : null,
    status.disruptionBudget
      ? [
          status.disruptionBudget.name,
          status.disruptionBudget.disruptionsAllowed,
          status.disruptionBudget.currentHealthy,
          status.disruptionBudget.desiredHealthy,
        ]
      : null,
    status.ingress ? [status.ingress.name, status.ingress.addresses ?? []] : null,
    status.readyReplicas ?? 0,
    status.availableReplicas ?? 0,
    status.observedGeneration,
    status.selector,
    status.message,
    conditions,
    status.canary ?? null,
    status.blueGreen ?? null,
  ];
}
