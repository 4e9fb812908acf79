import type { V1Pod } from '@kubernetes/client-node';
import {
  LABEL_REVISION,
  type NginxAnalysisTemplate,
  type NginxBlueGreenStatus,
  type NginxBlueGreenStrategy,
  type NginxPodTemplate,
} from '@ngx/nginx-api';
import { gateRunName, type GateCall } from './gate-runs.js';
import { nextMeasurementIn, runPhase } from '../analysis/analysis-run.js';
import { isActive, isFinished } from './pod-plan.js';
import {
  byDeletionOrder,
  isAvailable,
  nextAvailableIn,
  runsRevision,
  type RolloutDeleteReason,
  type RolloutPlan,
} from './rollout-plan.js';

export type BlueGreenStrategy = NginxBlueGreenStrategy;
export type BlueGreenStatus = NginxBlueGreenStatus;

export const DEFAULT_SCALE_DOWN_DELAY_SECONDS = 30;

export interface BlueGreenInput {
  replicas: number;
  strategy: BlueGreenStrategy | undefined;
  analysis: readonly NginxAnalysisTemplate[] | undefined;
  /** status.currentRevision: the revision serving now, active until the switch. */
  stableRevision: string | undefined;
  updateRevision: string;
  template: NginxPodTemplate;
  pods: readonly V1Pod[];
  minReadySeconds: number;
  now: number;
  burst: number;
  previous: BlueGreenStatus | undefined;
  /** spec.paused: a rollout between two revisions holds where it is (no preview made, nothing promoted). */
  paused?: boolean;
  /** `<updateRevision>/…` promotes (a manual promotion, or past a pre-promotion analysis that paused); `<updateRevision>` aborts. */
  requests: { promote?: string; abort?: string };
}

export interface BlueGreenPlan extends RolloutPlan {
  /** Pods of the stable revision to create now (`create` counts the update revision's). */
  createStable: number;
  /** The status.blueGreen to write; undefined without a rollout between two revisions. */
  blueGreen: BlueGreenStatus | undefined;
  /** What the active Service selects now: switched (and switched back) in one write. */
  activeRevision: string;
  /** What the preview Service selects. */
  previewRevision: string;
  recheckInMs?: number;
  /** A measurement of this run is due now: take it, add it and plan again. */
  measure?: { run: string; template: NginxAnalysisTemplate };
  /** The pre-promotion webhook gate is due now: call it, record its verdict (withGateRun) and plan again. */
  callGate?: GateCall;
}

const revisionOf = (pod: V1Pod) => pod.metadata?.labels?.[LABEL_REVISION];
const iso = (at: number) => new Date(at).toISOString();

/** The name of the pre- or post-promotion run of `templateName` for `revision`. */
export const blueGreenRunName = (revision: string, when: 'pre' | 'post', templateName: string) =>
  `${revision}-${when}-${templateName}`;

/**
 * What strategy BlueGreen does now, decided from the spec, status.blueGreen and the pods alone:
 *
 * - No stable revision (the first rollout, or the template back at the stable one): the update revision simply
 *   gets spec.replicas pods and is active.
 * - A new update revision is previewed: `previewReplicaCount` pods of it (default spec.replicas) beside every pod
 *   of the stable one, which stays active. Once they are all available (`previewReadyAt`) the pre-promotion
 *   analysis runs, if any: Failed aborts, Inconclusive or Error pauses.
 * - Promotion: by a promote naming the update revision, or by itself (autoPromotionEnabled, default true) once
 *   `autoPromotionSeconds` have passed since previewReadyAt; with autoPromotionEnabled false it waits Paused.
 *   Promoting scales the update revision to spec.replicas, then switches the active Service to it in one write.
 * - After the switch the post-promotion analysis runs, if any (Failed aborts, switching back in one write); the
 *   stable revision's pods stay until both it has passed and `scaleDownDelaySeconds` (default 30) have passed
 *   since the switch, then go: Promoted.
 * - Abort (a request, or a failed analysis): the active Service back on the stable revision in one write, the
 *   update revision's pods deleted, the stable revision at spec.replicas. Aborted holds until the template changes.
 */
export function planBlueGreen(input: BlueGreenInput): BlueGreenPlan {
  const { replicas, updateRevision, stableRevision, now } = input;
  const finished = finishedPods(input.pods);
  const active = input.pods.filter(isActive);
  const fresh = active.filter((pod) => runsRevision(pod, updateRevision, input.template));
  const availableInMs = nextAvailableIn(active, input.minReadySeconds, now);
  if (!stableRevision || stableRevision === updateRevision) {
    const others = active.filter((pod) => !fresh.includes(pod));
    let kept = input.previous?.revision === updateRevision ? input.previous : undefined;
    // The old revision's last pods went in the sync that also made this one the stable revision.
    if (kept?.phase === 'Promoting' && others.length === 0 && fresh.length === replicas)
      kept = { ...kept, phase: 'Promoted' };
    return {
      ...scaleTo(input, fresh, others, replicas, finished),
      createStable: 0,
      blueGreen: kept,
      activeRevision: updateRevision,
      previewRevision: updateRevision,
      ...(availableInMs === undefined ? {} : { recheckInMs: availableInMs }),
    };
  }

  if (input.paused) {
    // As a paused Deployment: nothing moves between the revisions; finished pods are still replaced.
    const kept = input.previous?.revision === updateRevision ? input.previous : undefined;
    return {
      create: 0,
      createStable: 0,
      delete: finished.slice(0, input.burst),
      blueGreen: kept,
      activeRevision: kept?.activeRevision ?? stableRevision,
      previewRevision: updateRevision,
    };
  }
  const stable = active.filter((pod) => !fresh.includes(pod) && revisionOf(pod) === stableRevision);
  const others = active.filter((pod) => !fresh.includes(pod) && !stable.includes(pod));
  let status = startOrResume(input, stableRevision);
  if (input.requests.abort === updateRevision && status.phase !== 'Promoted' && status.phase !== 'Aborted')
    status = { ...status, phase: 'Aborted', activeRevision: stableRevision, message: 'Aborted by request.' };
  if (status.phase === 'Aborted')
    return aborted(input, status, stableRevision, fresh, stable, others, finished);

  const available = (pod: V1Pod) => isAvailable(pod, input.minReadySeconds, now);
  const allAvailable = (pods: V1Pod[], count: number) => pods.length === count && pods.every(available);
  const strategy = input.strategy ?? {};
  const previewCount = Math.min(strategy.previewReplicaCount ?? replicas, replicas);

  if (status.activeRevision === stableRevision) {
    // Before the switch: previewing, then promoting (in the same sync once it may).
    if (status.phase !== 'Promoting') {
      const ready = allAvailable(fresh, previewCount);
      if (ready && !status.previewReadyAt) status = { ...status, previewReadyAt: iso(now) };
      const decided = beforePromotion(input, status, ready);
      if (decided.status.phase === 'Aborted')
        return aborted(input, decided.status, stableRevision, fresh, stable, others, finished);
      status = decided.status;
      if (status.phase !== 'Promoting') {
        const plan = twoRevisions(
          input,
          { fresh, target: previewCount },
          { stable, target: replicas },
          others,
          finished,
        );
        return withStatus(plan, status, stableRevision, updateRevision, decided, availableInMs);
      }
    }
    if (!allAvailable(fresh, replicas)) {
      const plan = twoRevisions(
        input,
        { fresh, target: replicas },
        { stable, target: replicas },
        others,
        finished,
      );
      return withStatus(plan, status, stableRevision, updateRevision, {}, availableInMs);
    }
    // Every pod of the new revision is up: the active Service switches to it now.
    status = { ...status, activeRevision: updateRevision, promotedAt: iso(now) };
  }

  // After the switch: the post-promotion analysis, then the old pods go once the delay has passed.
  const after = afterPromotion(input, status);
  if (after.status.phase === 'Aborted')
    return aborted(input, after.status, stableRevision, fresh, stable, others, finished);
  const delayMs = (strategy.scaleDownDelaySeconds ?? DEFAULT_SCALE_DOWN_DELAY_SECONDS) * 1000;
  const scaleDownIn = Date.parse(after.status.promotedAt!) + delayMs - now;
  const keepStable = after.waiting || scaleDownIn > 0;
  const plan = twoRevisions(
    input,
    { fresh, target: replicas },
    { stable, target: keepStable ? stable.length : 0 },
    others,
    finished,
  );
  const done = !keepStable && stable.length === 0 && others.length === 0 && allAvailable(fresh, replicas);
  const next: BlueGreenStatus = done ? { ...after.status, phase: 'Promoted' } : after.status;
  return withStatus(
    plan,
    next,
    updateRevision,
    updateRevision,
    {
      recheckInMs: earliest(after.recheckInMs, keepStable && !after.waiting ? scaleDownIn : undefined),
      measure: after.measure,
    },
    availableInMs,
  );
}

/** status.blueGreen where it left this revision (a copy), or a new preview with the stable revision active. */
function startOrResume(input: BlueGreenInput, stableRevision: string): BlueGreenStatus {
  if (input.previous?.revision === input.updateRevision) {
    const previous = structuredClone(input.previous);
    if (previous.phase !== 'Paused') return previous;
    const { message: _message, ...rest } = previous; // a pause is decided again below
    return { ...rest, phase: 'Previewing' };
  }
  return { revision: input.updateRevision, activeRevision: stableRevision, phase: 'Previewing' };
}

interface Decision {
  status: BlueGreenStatus;
  recheckInMs?: number;
  measure?: BlueGreenPlan['measure'];
  callGate?: GateCall;
  /** A post-promotion analysis still to pass: the old pods stay. */
  waiting?: boolean;
}

/** Whether the preview is promoted now: ready, its pre-promotion analysis passed, and promoted (by request or by itself). */
function beforePromotion(input: BlueGreenInput, status: BlueGreenStatus, ready: boolean): Decision {
  if (!ready) return { status };
  const strategy = input.strategy ?? {};
  const requested = input.requests.promote?.startsWith(`${input.updateRevision}/`) === true;
  if (strategy.prePromotionAnalysis && !requested) {
    const run = analysisGate(input, status, 'pre', strategy.prePromotionAnalysis.templateName);
    if (run.status.phase !== 'Promoting') return run;
    status = run.status;
  }
  if (requested) return { status: { ...status, phase: 'Promoting' } };
  const gate = strategy.prePromotionGate;
  if (gate?.manual)
    return {
      status: {
        ...status,
        phase: 'Paused',
        message: 'Preview ready: waiting at a manual gate, until a promote.',
      },
    };
  if (gate?.webhook) {
    const name = gateRunName(input.updateRevision, 'pre');
    const run = status.gateRuns?.find((r) => r.name === name);
    if (!run) return { status, callGate: { run: name, step: 0, webhook: gate.webhook } };
    if (run.phase === 'Failed')
      return {
        status: {
          ...status,
          phase: 'Aborted',
          abortedBy: name,
          message: `Aborted: gate ${name} failed: ${run.message ?? 'failed'}.`,
        },
      };
  }
  if (strategy.autoPromotionEnabled === false)
    return { status: { ...status, phase: 'Paused', message: 'Preview ready: waiting for a promote.' } };
  const dueIn = Date.parse(status.previewReadyAt!) + (strategy.autoPromotionSeconds ?? 0) * 1000 - input.now;
  if (dueIn > 0) return { status: { ...status, phase: 'Previewing' }, recheckInMs: dueIn };
  return { status: { ...status, phase: 'Promoting' } };
}

/** After the switch: the post-promotion analysis, when there is one (Failed aborts, switching back). */
function afterPromotion(input: BlueGreenInput, status: BlueGreenStatus): Decision {
  const post = input.strategy?.postPromotionAnalysis;
  if (!post) return { status: { ...status, phase: status.phase === 'Promoted' ? 'Promoted' : 'Promoting' } };
  const run = analysisGate(input, status, 'post', post.templateName);
  if (run.status.phase === 'Aborted' || run.status.phase === 'Paused')
    return { ...run, waiting: run.status.phase === 'Paused' };
  return run.status.phase === 'Promoting' ? { ...run, waiting: false } : { ...run, waiting: true };
}

/**
 * A pre- or post-promotion analysis run: Successful → `Promoting` (go on); Running → measured when due (the phase
 * kept); Failed → Aborted; Inconclusive or Error → Paused, naming why.
 */
function analysisGate(
  input: BlueGreenInput,
  start: BlueGreenStatus,
  when: 'pre' | 'post',
  templateName: string,
): Decision {
  const template = input.analysis?.find((t) => t.name === templateName);
  if (!template)
    return {
      status: {
        ...start,
        phase: 'Paused',
        message: `Paused: spec.analysis has no entry named ${templateName}.`,
      },
    };
  const name = blueGreenRunName(input.updateRevision, when, templateName);
  const runs = start.analysisRuns ?? [];
  let status = start;
  let run = runs.find((r) => r.name === name);
  if (!run) {
    run = {
      name,
      templateName,
      step: when === 'pre' ? 0 : 1,
      phase: 'Running',
      startedAt: iso(input.now),
      measurements: [],
    };
    status = { ...status, analysisRuns: [...runs, run] };
  }
  const phase = runPhase(template, run.measurements);
  if (phase === 'Successful') return { status: { ...status, phase: 'Promoting' } };
  if (phase === 'Running') {
    const due = nextMeasurementIn(template, run, input.now);
    return due === 0 ? { status, measure: { run: name, template } } : { status, recheckInMs: due };
  }
  if (phase === 'Failed')
    return {
      status: {
        ...status,
        phase: 'Aborted',
        abortedBy: name,
        message: `Aborted: ${when}-promotion analysis run ${name} failed.`,
      },
    };
  return { status: { ...status, phase: 'Paused', message: `Paused: analysis run ${name} is ${phase}.` } };
}

/** Aborted: the stable revision active and at spec.replicas at once, the update revision's pods deleted. */
function aborted(
  input: BlueGreenInput,
  status: BlueGreenStatus,
  stableRevision: string,
  fresh: V1Pod[],
  stable: V1Pod[],
  others: V1Pod[],
  finished: RolloutPlan['delete'],
): BlueGreenPlan {
  const victims = [
    ...finished,
    ...byDeletionOrder([...fresh, ...others]).map((pod) => ({
      pod,
      reason: 'rollback' as RolloutDeleteReason,
    })),
    ...byDeletionOrder(stable)
      .slice(0, Math.max(0, stable.length - input.replicas))
      .map((pod) => ({ pod, reason: 'scale-down' as RolloutDeleteReason })),
  ];
  return {
    create: 0,
    createStable: Math.min(Math.max(0, input.replicas - stable.length), input.burst),
    delete: victims.slice(0, input.burst),
    blueGreen: { ...status, phase: 'Aborted', activeRevision: stableRevision },
    activeRevision: stableRevision,
    // As Argo Rollouts does: the preview Service stays on the aborted revision (no pods: no endpoints), so the
    // preview never serves the old revision under the new one's name.
    previewRevision: input.updateRevision,
  };
}

function finishedPods(pods: readonly V1Pod[]): RolloutPlan['delete'] {
  return pods
    .filter((pod) => !pod.metadata?.deletionTimestamp && isFinished(pod))
    .map((pod) => ({ pod, reason: pod.status?.phase === 'Failed' ? 'pod-failed' : 'pod-succeeded' }));
}

/** `fresh` at `target` pods (others deleted first, then a surplus), capped at burst. */
function scaleTo(
  input: BlueGreenInput,
  fresh: V1Pod[],
  others: V1Pod[],
  target: number,
  finished: RolloutPlan['delete'],
): RolloutPlan {
  const remove = [
    ...finished,
    ...byDeletionOrder(others).map((pod) => ({ pod, reason: 'scale-down' as RolloutDeleteReason })),
    ...byDeletionOrder(fresh)
      .slice(0, Math.max(0, fresh.length - target))
      .map((pod) => ({ pod, reason: 'scale-down' as RolloutDeleteReason })),
  ];
  return {
    create: Math.min(Math.max(0, target - fresh.length), input.burst),
    delete: remove.slice(0, input.burst),
  };
}

/**
 * Both revisions brought to their targets with no surge bound (blue-green runs both side by side by design):
 * creations and deletions each capped at burst; pods of any third revision deleted first.
 */
function twoRevisions(
  input: BlueGreenInput,
  update: { fresh: V1Pod[]; target: number },
  old: { stable: V1Pod[]; target: number },
  others: V1Pod[],
  finished: RolloutPlan['delete'],
): RolloutPlan & { createStable: number } {
  const create = Math.min(Math.max(0, update.target - update.fresh.length), input.burst);
  const createStable = Math.min(Math.max(0, old.target - old.stable.length), input.burst - create);
  const remove = [
    ...finished,
    ...byDeletionOrder(others).map((pod) => ({ pod, reason: 'rollback' as RolloutDeleteReason })),
    ...byDeletionOrder(update.fresh)
      .slice(0, Math.max(0, update.fresh.length - update.target))
      .map((pod) => ({ pod, reason: 'scale-down' as RolloutDeleteReason })),
    ...byDeletionOrder(old.stable)
      .slice(0, Math.max(0, old.stable.length - old.target))
      .map((pod) => ({ pod, reason: 'scale-down' as RolloutDeleteReason })),
  ];
  return { create, createStable, delete: remove.slice(0, input.burst) };
}

function withStatus(
  plan: RolloutPlan & { createStable?: number },
  status: BlueGreenStatus,
  activeRevision: string,
  previewRevision: string,
  decided: { recheckInMs?: number; measure?: BlueGreenPlan['measure']; callGate?: GateCall },
  availableInMs: number | undefined,
): BlueGreenPlan {
  const recheckInMs = earliest(decided.recheckInMs, availableInMs);
  return {
    ...plan,
    createStable: plan.createStable ?? 0,
    blueGreen: status,
    activeRevision,
    previewRevision,
    ...(recheckInMs === undefined ? {} : { recheckInMs }),
    ...(decided.measure ? { measure: decided.measure } : {}),
    ...(decided.callGate ? { callGate: decided.callGate } : {}),
  };
}

function earliest(...delays: (number | undefined)[]): number | undefined {
  const known = delays.filter((delay): delay is number => delay !== undefined);
  return known.length ? Math.min(...known) : undefined;
}
