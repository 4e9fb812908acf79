import type { V1Pod } from '@kubernetes/client-node';
import {
  DEFAULT_CANARY_MAX_UNAVAILABLE,
  DEFAULT_MAX_SURGE,
  LABEL_REVISION,
  durationMs,
  type NginxAnalysisMeasurement,
  type NginxAnalysisRun,
  type NginxAnalysisTemplate,
  type NginxCanaryStatus,
  type NginxCanaryStrategy,
  type NginxPodTemplate,
} from '@ngx/nginx-api';
import { nextMeasurementIn, runPhase } from '../analysis/analysis-run.js';
import { isActive, isFinished } from './pod-plan.js';
import {
  boundedMove,
  byDeletionOrder,
  isAvailable,
  nextAvailableIn,
  planRollout,
  resolveBounds,
  runsRevision,
  type RolloutDeleteReason,
  type RolloutPlan,
} from './rollout-plan.js';

/** The promote and abort requests as the annotations carry them (see ANNOTATION_PROMOTE, ANNOTATION_ABORT). */
export interface CanaryRequests {
  /** `<updateRevision>/<step>` or `<updateRevision>/full`. */
  promote?: string;
  /** `<updateRevision>`. */
  abort?: string;
}

export interface CanaryInput {
  replicas: number;
  canary: NginxCanaryStrategy | undefined;
  /** spec.analysis. */
  analysis: readonly NginxAnalysisTemplate[] | undefined;
  rollbackOnFailure: boolean;
  /**
   * status.currentRevision: the stable revision, whose pods the canary starts from. Undefined (or the update
   * revision) when there is none to come back to: then the pods simply scale.
   */
  stableRevision: string | undefined;
  updateRevision: string;
  /** The update revision's template. */
  template: NginxPodTemplate;
  /** Every pod the Nginx controls. */
  pods: readonly V1Pod[];
  minReadySeconds: number;
  /** Epoch milliseconds. */
  now: number;
  burst: number;
  /** status.canary as last written: the only state a canary has (a new leader resumes from it). */
  previous: NginxCanaryStatus | undefined;
  requests: CanaryRequests;
  /** spec.paused: nothing moves between revisions (as planRollout holds them). */
  paused?: boolean;
  /** The template cannot run (invalid config): held as if paused, and no pod of it is made (as planRollout). */
  invalid?: boolean;
}

export interface CanaryPlan extends RolloutPlan {
  /** Pods of the stable revision to create now (`create` counts those of the update revision). */
  createStable: number;
  /** The status.canary to write; undefined when there is no canary (no stable revision to start from). */
  canary: NginxCanaryStatus | undefined;
  /** When to look again, in ms from now: a pause ends, a measurement is due, a pod becomes available. */
  recheckInMs?: number;
  /** A measurement of this run is due now: take it, add it (withMeasurement) and plan again. */
  measure?: { run: string; template: NginxAnalysisTemplate };
}

/** Pods of the update revision at `weight` percent of `replicas`: rounded up, at least one above 0. */
export function canaryTarget(weight: number, replicas: number): number {
  if (weight <= 0) return 0;
  return Math.min(replicas, Math.max(1, Math.ceil((replicas * weight) / 100)));
}

/** The name of the run of `templateName` gating `step` of `revision`. */
export function runName(revision: string, step: number, templateName: string): string {
  return `${revision}-${step}-${templateName}`;
}

/** `canary` with `measurement` added to its run `run` (and the run's phase brought up to date). */
export function withMeasurement(
  canary: NginxCanaryStatus,
  run: string,
  template: NginxAnalysisTemplate,
  measurement: NginxAnalysisMeasurement,
): NginxCanaryStatus {
  const analysisRuns = (canary.analysisRuns ?? []).map((r) => {
    if (r.name !== run) return r;
    const measurements = [...r.measurements, measurement];
    return { ...r, measurements, phase: runPhase(template, measurements) };
  });
  return { ...canary, analysisRuns };
}

/** The canary's bounds inside a step: maxSurge 25% and maxUnavailable 0 unless the strategy says. */
export function canaryBounds(canary: NginxCanaryStrategy | undefined, replicas: number) {
  return resolveBounds(
    canary?.maxSurge ?? DEFAULT_MAX_SURGE,
    canary?.maxUnavailable ?? DEFAULT_CANARY_MAX_UNAVAILABLE,
    replicas,
  );
}

/**
 * What strategy Canary does now, decided from the spec, status.canary and the cache alone:
 *
 * - No stable revision (the first rollout, or the template back at the stable one): the pods scale (or roll, under
 *   the canary's bounds) to the update revision; there is no canary.
 * - A new update revision starts a canary at step 0 (weight 0). Each step in turn: `setWeight` moves the pods to
 *   canaryTarget(weight) of the update revision and the rest of the stable one, pods of any other revision
 *   drained first, under the canary's maxSurge/maxUnavailable; it is done once both counts are met and available.
 *   `pause {duration}` is done once the duration has passed since the step began; `pause {}` is Paused until a
 *   promote. `analysis` keeps a run `<revision>-<step>-<template>` in status.canary.analysisRuns, measured when due:
 *   Successful → next step; Failed → Aborted (rollbackOnFailure) or Paused; Inconclusive or Error → Paused, never
 *   promoted by itself. Past the last step the weight is 100; once every pod runs the update revision and is
 *   available the canary is Promoted.
 * - A promote naming the update revision and the current step moves past that step (`full`: past every step); an
 *   abort naming the update revision, or a failed run with rollbackOnFailure, aborts: see planRollback. Aborted
 *   holds until the template changes.
 */
export function planCanary(input: CanaryInput): CanaryPlan {
  const { replicas, updateRevision, stableRevision, now } = input;
  const steps = input.canary?.steps ?? [];
  const bounds = canaryBounds(input.canary, replicas);
  const nowText = new Date(now).toISOString();

  if (!stableRevision || stableRevision === updateRevision || input.paused || input.invalid) {
    const rollout = planRollout({
      replicas,
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: bounds.maxSurge, maxUnavailable: bounds.maxUnavailable },
      },
      updateRevision,
      template: input.template,
      pods: input.pods,
      minReadySeconds: input.minReadySeconds,
      now,
      burst: input.burst,
      paused: input.paused,
      invalid: input.invalid,
    });
    const kept = input.previous?.revision === updateRevision ? input.previous : undefined;
    return { ...rollout, createStable: 0, canary: kept, recheckInMs: rollout.availableInMs };
  }

  let canary: NginxCanaryStatus =
    input.previous?.revision === updateRevision
      ? structuredClone(input.previous)
      : { revision: updateRevision, step: 0, weight: 0, phase: 'Progressing', stepStartedAt: nowText };
  const advance = (to: number) => {
    canary = { ...canary, step: to, phase: 'Progressing', stepStartedAt: nowText };
    delete canary.message;
  };

  const { promote, abort } = input.requests;
  if (canary.phase !== 'Aborted' && canary.phase !== 'Promoted') {
    if (abort === updateRevision) {
      canary = { ...canary, phase: 'Aborted', message: 'Aborted by request.' };
    } else if (promote === `${updateRevision}/full`) {
      if (canary.step < steps.length) advance(steps.length);
    } else if (promote === `${updateRevision}/${canary.step}` && canary.step < steps.length) {
      advance(canary.step + 1);
    }
  }
  if (canary.phase === 'Aborted') {
    return {
      ...planRollback({ replicas, stableRevision, pods: input.pods, burst: input.burst }),
      canary: { ...canary, weight: 0 },
    };
  }

  const available = (pod: V1Pod) => isAvailable(pod, input.minReadySeconds, now);
  const active = input.pods.filter(isActive);
  const fresh = active.filter((pod) => runsRevision(pod, updateRevision, input.template));
  const stable = active.filter((pod) => !fresh.includes(pod) && revisionOf(pod) === stableRevision);
  const others = active.filter((pod) => !fresh.includes(pod) && !stable.includes(pod));
  const targetsMet = (weight: number) => {
    const target = canaryTarget(weight, replicas);
    return (
      others.length === 0 &&
      fresh.length === target &&
      stable.length === replicas - target &&
      [...fresh, ...stable].every(available)
    );
  };

  let recheckInMs: number | undefined;
  let measure: CanaryPlan['measure'];
  for (let guard = 0; guard <= steps.length + 1; guard++) {
    if (canary.step >= steps.length) {
      canary.weight = 100;
      if (targetsMet(100)) {
        canary.phase = 'Promoted';
        delete canary.message;
      }
      break;
    }
    const step = steps[canary.step]!;
    const label = `step ${canary.step + 1} of ${steps.length}`;
    if (step.setWeight !== undefined) {
      canary.weight = step.setWeight;
      if (!targetsMet(step.setWeight)) break;
      advance(canary.step + 1);
    } else if (step.pause) {
      if (step.pause.duration === undefined) {
        canary.phase = 'Paused';
        canary.message = `Paused at ${label} until a promote.`;
        break;
      }
      const endsIn = Date.parse(canary.stepStartedAt ?? nowText) + durationMs(step.pause.duration) - now;
      if (endsIn > 0) {
        recheckInMs = endsIn;
        break;
      }
      advance(canary.step + 1);
    } else if (step.analysis) {
      const { templateName } = step.analysis;
      const template = input.analysis?.find((t) => t.name === templateName);
      if (!template) {
        canary.phase = 'Paused';
        canary.message = `Paused at ${label}: spec.analysis has no entry named ${templateName}.`;
        break;
      }
      const name = runName(updateRevision, canary.step, templateName);
      const runs = canary.analysisRuns ?? [];
      let run = runs.find((r) => r.name === name);
      if (!run) {
        run = {
          name,
          templateName,
          step: canary.step,
          phase: 'Running',
          startedAt: nowText,
          measurements: [],
        };
        canary.analysisRuns = [...runs, run];
      }
      const phase = runPhase(template, run.measurements);
      if (phase === 'Successful') {
        advance(canary.step + 1);
        continue;
      }
      if (phase === 'Running') {
        const due = nextMeasurementIn(template, run, now);
        if (due === 0) measure = { run: name, template };
        else recheckInMs = due;
        break;
      }
      if (phase === 'Failed' && input.rollbackOnFailure) {
        canary = {
          ...canary,
          phase: 'Aborted',
          weight: 0,
          abortedBy: name,
          message: `Aborted: analysis run ${name} failed: ${failedMessage(run)}.`,
        };
        return {
          ...planRollback({ replicas, stableRevision, pods: input.pods, burst: input.burst }),
          canary,
        };
      }
      canary.phase = 'Paused';
      canary.message =
        phase === 'Failed'
          ? `Paused at ${label}: analysis run ${name} failed (${failedMessage(run)}); promote or abort.`
          : `Paused at ${label}: analysis run ${name} is ${phase}: ${lastMessage(run)}`;
      break;
    }
  }

  const target = canaryTarget(canary.weight, replicas);
  const plan = planGroups(
    input,
    bounds,
    [
      { pods: fresh, target },
      { pods: stable, target: replicas - target },
    ],
    others,
  );
  return {
    ...plan,
    createStable: plan.createStable,
    canary,
    recheckInMs: earliest(recheckInMs, plan.availableInMs),
    ...(measure ? { measure } : {}),
  };
}

/**
 * Every pod back to `stableRevision` at once, as an abort or a rollback does: the stable pods missing up to
 * `replicas` are all created now (only `burst` caps them, no surge pacing) and none is deleted (but a surplus over
 * replicas); every pod of another revision is deleted now, as Argo Rollouts scales an aborted canary down at once —
 * a revision judged bad serves no more traffic, and the stable pods made in the same sync bring the capacity back.
 */
export function planRollback(input: {
  replicas: number;
  stableRevision: string;
  pods: readonly V1Pod[];
  burst: number;
}): Omit<CanaryPlan, 'canary'> {
  const { replicas, burst } = input;
  const finished = input.pods.filter((pod) => !pod.metadata?.deletionTimestamp && isFinished(pod));
  const active = input.pods.filter(isActive);
  const stable = active.filter((pod) => revisionOf(pod) === input.stableRevision);
  const others = active.filter((pod) => !stable.includes(pod));
  const surplus = byDeletionOrder(stable).slice(0, Math.max(0, stable.length - replicas));
  const victims: { pod: V1Pod; reason: RolloutDeleteReason }[] = [
    ...finished.map((pod) => ({ pod, reason: finishedReason(pod) })),
    ...byDeletionOrder(others).map((pod) => ({ pod, reason: 'rollback' as const })),
    ...surplus.map((pod) => ({ pod, reason: 'scale-down' as const })),
  ];
  return {
    create: 0,
    createStable: Math.min(Math.max(0, replicas - stable.length), burst),
    delete: victims.slice(0, burst),
  };
}

/** A bounded move of the canary's two groups, others drained, finished pods replaced; creations and deletions capped at burst. */
function planGroups(
  input: CanaryInput,
  bounds: ReturnType<typeof canaryBounds>,
  groups: [{ pods: V1Pod[]; target: number }, { pods: V1Pod[]; target: number }],
  others: V1Pod[],
): RolloutPlan & { createStable: number } {
  const { pods, burst, now, minReadySeconds } = input;
  const remove: { pod: V1Pod; reason: RolloutDeleteReason }[] = pods
    .filter((pod) => !pod.metadata?.deletionTimestamp && isFinished(pod))
    .map((pod) => ({ pod, reason: finishedReason(pod) }));
  const move = boundedMove({
    replicas: input.replicas,
    bounds,
    groups,
    others,
    available: (pod) => isAvailable(pod, minReadySeconds, now),
    burst,
  });
  remove.push(
    ...move.scaleDown.map((pod) => ({ pod, reason: 'scale-down' as const })),
    ...move.remove.map((pod) => ({ pod, reason: 'canary' as const })),
  );
  return {
    create: move.create[0]!,
    createStable: move.create[1]!,
    delete: remove.slice(0, burst),
    availableInMs: nextAvailableIn(pods.filter(isActive), minReadySeconds, now),
  };
}

const revisionOf = (pod: V1Pod) => pod.metadata?.labels?.[LABEL_REVISION];

const finishedReason = (pod: V1Pod): RolloutDeleteReason =>
  pod.status?.phase === 'Failed' ? 'pod-failed' : 'pod-succeeded';

function lastMessage(run: NginxAnalysisRun): string {
  return run.measurements.at(-1)?.message ?? 'no message';
}

/** Why the run failed: its latest failed measurement's message (a later one may have passed). */
function failedMessage(run: NginxAnalysisRun): string {
  return run.measurements.findLast((m) => m.phase === 'Failed')?.message ?? 'no message';
}

function earliest(...delays: (number | undefined)[]): number | undefined {
  const known = delays.filter((delay): delay is number => delay !== undefined);
  return known.length ? Math.min(...known) : undefined;
}
