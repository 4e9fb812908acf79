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
  type NginxGate,
  type NginxCanaryStep,
  type NginxCanaryStrategy,
  type NginxHeaderMatch,
  type NginxPodTemplate,
} from '@ngx/nginx-api';
import { gateRunName, type GateCall } from './gate-runs.js';
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
  /**
   * spec.strategy.canary.trafficRouting is set: the weight is the HTTPRoute's, written by the caller (plan.route)
   * and known written once status.canary.trafficWeight says so; the stable pods stay at spec.replicas while the
   * canary's follow the weight or setCanaryScale.
   */
  trafficRouting?: boolean;
}

/** A setHeaderRoute step's route: requests matching `match` go to the canary. */
export interface HeaderRoute {
  name: string;
  match: readonly NginxHeaderMatch[];
}

/** What the HTTPRoute must hold now (trafficRouting): the canary's weight, and the header route in force. */
export interface RouteWant {
  weight: number;
  headerRoute?: HeaderRoute;
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
  /** A webhook gate is due now: call it, record its verdict (withGateRun) and plan again. */
  callGate?: GateCall;
  /**
   * trafficRouting: the route as it must be before any pod is written. When it differs from what status.canary
   * says written (trafficWeight, headerRoute), write it, record it (withRouteWritten) and plan again.
   */
  route?: RouteWant;
}

/** `canary` recording that the route now holds `route`. */
export function withRouteWritten(canary: NginxCanaryStatus, route: RouteWant): NginxCanaryStatus {
  const { headerRoute: _headerRoute, ...rest } = canary;
  return {
    ...rest,
    trafficWeight: route.weight,
    ...(route.headerRoute ? { headerRoute: route.headerRoute.name } : {}),
  };
}

/** Whether status.canary says the route holds `route`. */
export function routeWritten(canary: NginxCanaryStatus | undefined, route: RouteWant): boolean {
  return (canary?.trafficWeight ?? 0) === route.weight && canary?.headerRoute === route.headerRoute?.name;
}

/**
 * Canary pods for a canary at `weight` with trafficRouting: setCanaryScale's last word at or before `step`
 * (replicas: that count; weight: that share of replicas), else (or after matchTrafficWeight) the traffic weight's.
 */
export function canaryScale(
  steps: readonly NginxCanaryStep[],
  step: number,
  weight: number,
  replicas: number,
): number {
  const scale = steps.slice(0, step + 1).findLast((s) => s.setCanaryScale)?.setCanaryScale;
  if (scale?.replicas !== undefined) return Math.min(scale.replicas, replicas);
  if (scale?.weight !== undefined) return canaryTarget(scale.weight, replicas);
  return canaryTarget(weight, replicas);
}

/** The header route a canary at `step` has in force: the last setHeaderRoute at or before it. */
function headerRouteAt(steps: readonly NginxCanaryStep[], step: number): HeaderRoute | undefined {
  return steps.slice(0, step + 1).findLast((s) => s.setHeaderRoute)?.setHeaderRoute;
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
export function withMeasurement<S extends { analysisRuns?: NginxAnalysisRun[] }>(
  canary: S,
  run: string,
  template: NginxAnalysisTemplate,
  measurement: NginxAnalysisMeasurement,
): S {
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
  const { replicas, updateRevision, stableRevision } = input;
  const bounds = canaryBounds(input.canary, replicas);
  if (!stableRevision || stableRevision === updateRevision || input.paused || input.invalid)
    return planWithoutCanary(input, bounds);

  const requested = applyRequests(input, startOrResume(input));
  if (requested.phase === 'Aborted') return abortTo(input, stableRevision, { ...requested, weight: 0 });

  const groups = groupPods(input, stableRevision);
  const walked = walkSteps(input, requested, groups);
  if (walked.canary.phase === 'Aborted') return abortTo(input, stableRevision, walked.canary);

  const targets = podTargets(input, walked.canary);
  const plan = planGroups(
    input,
    bounds,
    [
      { pods: groups.fresh, target: targets.fresh },
      { pods: groups.stable, target: targets.stable },
    ],
    groups.others,
  );
  return {
    ...plan,
    createStable: plan.createStable,
    canary: walked.canary,
    recheckInMs: earliest(walked.recheckInMs, plan.availableInMs),
    ...(walked.measure ? { measure: walked.measure } : {}),
    ...(walked.callGate ? { callGate: walked.callGate } : {}),
    ...(input.trafficRouting ? { route: routeFor(input, walked.canary, walked.writeWeight) } : {}),
  };
}

/**
 * The pods each revision should have with the canary at `canary`. Without trafficRouting the weight splits
 * spec.replicas. With it, the stable revision keeps spec.replicas and the canary's follow canaryScale; past the
 * last step the canary has them all, and the stable pods go once the route sends the canary 100.
 */
function podTargets(input: CanaryInput, canary: NginxCanaryStatus): { fresh: number; stable: number } {
  const { replicas } = input;
  if (!input.trafficRouting) {
    const fresh = canaryTarget(canary.weight, replicas);
    return { fresh, stable: replicas - fresh };
  }
  const steps = input.canary?.steps ?? [];
  if (canary.step >= steps.length)
    return { fresh: replicas, stable: canary.trafficWeight === 100 ? 0 : replicas };
  return { fresh: canaryScale(steps, canary.step, canary.weight, replicas), stable: replicas };
}

/** The route as a canary at `canary` needs it: `writeWeight` when a step is due to write one, else as written. */
function routeFor(input: CanaryInput, canary: NginxCanaryStatus, writeWeight?: number): RouteWant {
  const steps = input.canary?.steps ?? [];
  const weight = writeWeight ?? canary.trafficWeight ?? 0;
  if (canary.phase === 'Promoted' || steps.length === 0) return { weight };
  const headerRoute = headerRouteAt(steps, Math.min(canary.step, steps.length - 1));
  return headerRoute ? { weight, headerRoute } : { weight };
}

/**
 * No canary (no stable revision to start from, or held by spec.paused or an invalid template): the pods roll
 * to the update revision under the canary's bounds; status.canary is kept while it is still this revision's.
 */
function planWithoutCanary(input: CanaryInput, bounds: ReturnType<typeof canaryBounds>): CanaryPlan {
  const rollout = planRollout({
    replicas: input.replicas,
    strategy: {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: bounds.maxSurge, maxUnavailable: bounds.maxUnavailable },
    },
    updateRevision: input.updateRevision,
    template: input.template,
    pods: input.pods,
    minReadySeconds: input.minReadySeconds,
    now: input.now,
    burst: input.burst,
    paused: input.paused,
    invalid: input.invalid,
  });
  const kept = input.previous?.revision === input.updateRevision ? input.previous : undefined;
  const plan: CanaryPlan = { ...rollout, createStable: 0, canary: kept, recheckInMs: rollout.availableInMs };
  if (!input.trafficRouting) return plan;
  // Held (spec.paused, an invalid template) mid-canary, the route keeps what it was given; with no canary, 0.
  const held =
    kept && kept.phase !== 'Promoted' && kept.phase !== 'Aborted' && kept.revision !== input.stableRevision;
  return { ...plan, route: held && input.stableRevision ? writtenRoute(input, kept) : { weight: 0 } };
}

/** The route as status.canary says it was last written (what a held canary keeps). */
function writtenRoute(input: CanaryInput, canary: NginxCanaryStatus): RouteWant {
  const headerRoute = (input.canary?.steps ?? []).find(
    (step) => step.setHeaderRoute && step.setHeaderRoute.name === canary.headerRoute,
  )?.setHeaderRoute;
  const weight = canary.trafficWeight ?? 0;
  return headerRoute ? { weight, headerRoute } : { weight };
}

/** The canary where status.canary left it for this update revision (a copy), or a new one at step 0. */
function startOrResume(input: CanaryInput): NginxCanaryStatus {
  if (input.previous?.revision === input.updateRevision) {
    const previous = structuredClone(input.previous);
    if (previous.phase !== 'Paused') return previous;
    // Every pause is decided again by the walk (a pause step, an analysis, the route's absence): none is kept.
    const { message: _message, ...rest } = previous;
    return { ...rest, phase: 'Progressing' };
  }
  return {
    revision: input.updateRevision,
    step: 0,
    weight: 0,
    phase: 'Progressing',
    stepStartedAt: new Date(input.now).toISOString(),
  };
}

/** `canary` moved on to step `to`, starting now. */
function advanced(canary: NginxCanaryStatus, to: number, now: number): NginxCanaryStatus {
  const { message: _message, ...rest } = canary;
  return { ...rest, step: to, phase: 'Progressing', stepStartedAt: new Date(now).toISOString() };
}

/** The promote or abort request of the annotations applied to a canary that has not ended. */
function applyRequests(input: CanaryInput, canary: NginxCanaryStatus): NginxCanaryStatus {
  if (canary.phase === 'Aborted' || canary.phase === 'Promoted') return canary;
  const { updateRevision, now } = input;
  const steps = input.canary?.steps ?? [];
  const { promote, abort } = input.requests;
  if (abort === updateRevision) return { ...canary, phase: 'Aborted', message: 'Aborted by request.' };
  if (promote === `${updateRevision}/full`)
    return canary.step < steps.length ? advanced(canary, steps.length, now) : canary;
  if (promote === `${updateRevision}/${canary.step}` && canary.step < steps.length)
    return advanced(canary, canary.step + 1, now);
  return canary;
}

/** Every pod back to the stable revision, the canary reported as `canary` (Aborted). */
function abortTo(input: CanaryInput, stableRevision: string, canary: NginxCanaryStatus): CanaryPlan {
  return {
    ...planRollback({ replicas: input.replicas, stableRevision, pods: input.pods, burst: input.burst }),
    canary,
    ...(input.trafficRouting ? { route: { weight: 0 } } : {}),
  };
}

/** The active pods by revision, and whether they meet a weight's counts, all available. */
interface PodGroups {
  /** Of the update revision. */
  fresh: V1Pod[];
  /** Of the stable revision. */
  stable: V1Pod[];
  /** Of any other revision: drained first. */
  others: V1Pod[];
  /** Whether each revision has exactly these pods, all available, and no other revision any. */
  targetsMet: (targets: { fresh: number; stable: number }) => boolean;
}

function groupPods(input: CanaryInput, stableRevision: string): PodGroups {
  const { updateRevision, now } = input;
  const available = (pod: V1Pod) => isAvailable(pod, input.minReadySeconds, now);
  const active = input.pods.filter(isActive);
  const fresh = active.filter((pod) => runsRevision(pod, updateRevision, input.template));
  const stable = active.filter((pod) => !fresh.includes(pod) && revisionOf(pod) === stableRevision);
  const others = active.filter((pod) => !fresh.includes(pod) && !stable.includes(pod));
  const targetsMet = (targets: { fresh: number; stable: number }) =>
    others.length === 0 &&
    fresh.length === targets.fresh &&
    stable.length === targets.stable &&
    [...fresh, ...stable].every(available);
  return { fresh, stable, others, targetsMet };
}

/** Where the steps leave the canary now, and when to look again or what to measure. */
interface StepWalk {
  canary: NginxCanaryStatus;
  recheckInMs?: number;
  measure?: CanaryPlan['measure'];
  callGate?: GateCall;
  /** trafficRouting: the weight the route is due to get now (its pods are ready for it). */
  writeWeight?: number;
}

/** One step's outcome: its canary, and whether the walk goes on to the next step. */
type StepOutcome = StepWalk & { next: boolean };

/** The steps from the canary's current one, each done in turn as far as they can be now. */
function walkSteps(input: CanaryInput, start: NginxCanaryStatus, groups: PodGroups): StepWalk {
  const steps = input.canary?.steps ?? [];
  let canary = start;
  for (let guard = 0; guard <= steps.length + 1; guard++) {
    if (canary.step >= steps.length) return fullWeight(input, canary, groups);
    const outcome = runStep(input, canary, groups);
    if (!outcome.next) return outcome;
    canary = outcome.canary;
  }
  return { canary };
}

/**
 * Past the last step: weight 100, Promoted once every pod runs the update revision and is available. With
 * trafficRouting the route gets 100 once the canary has every pod ready, and only then do the stable pods go.
 */
function fullWeight(input: CanaryInput, canary: NginxCanaryStatus, groups: PodGroups): StepWalk {
  const full = { ...canary, weight: 100 };
  if (input.trafficRouting && full.trafficWeight !== 100)
    return groups.targetsMet(podTargets(input, full)) ? { canary: full, writeWeight: 100 } : { canary: full };
  if (!groups.targetsMet(podTargets(input, full))) return { canary: full };
  const { message: _message, ...rest } = full;
  return { canary: { ...rest, phase: 'Promoted' } };
}

/** The canary's current step (setWeight, pause or analysis), done as far as it can be now. */
function runStep(input: CanaryInput, canary: NginxCanaryStatus, groups: PodGroups): StepOutcome {
  const steps = input.canary?.steps ?? [];
  const step = steps[canary.step]!;
  const { now } = input;
  if (step.setWeight !== undefined) {
    const weighted = { ...canary, weight: step.setWeight };
    if (!groups.targetsMet(podTargets(input, weighted))) return { canary: weighted, next: false };
    // With trafficRouting the step is done once the route has the weight too (its pods came first).
    if (input.trafficRouting && (canary.trafficWeight ?? 0) !== step.setWeight)
      return { canary: weighted, writeWeight: step.setWeight, next: false };
    return { canary: advanced(weighted, canary.step + 1, now), next: true };
  }
  if (step.setHeaderRoute)
    return canary.headerRoute === step.setHeaderRoute.name
      ? { canary: advanced(canary, canary.step + 1, now), next: true }
      : { canary, next: false };
  if (step.setCanaryScale) return { canary: advanced(canary, canary.step + 1, now), next: true };
  if (step.pause) {
    if (step.pause.duration === undefined)
      return {
        canary: {
          ...canary,
          phase: 'Paused',
          message: `Paused at ${stepLabel(canary, steps.length)} until a promote.`,
        },
        next: false,
      };
    const startedAt = Date.parse(canary.stepStartedAt ?? new Date(now).toISOString());
    const endsIn = startedAt + durationMs(step.pause.duration) - now;
    return endsIn > 0
      ? { canary, recheckInMs: endsIn, next: false }
      : { canary: advanced(canary, canary.step + 1, now), next: true };
  }
  if (step.analysis) return analysisStep(input, canary, step.analysis.templateName);
  if (step.gate) return gateStep(input, canary, step.gate);
  return { canary, next: true };
}

/**
 * A gate step. Manual: Paused until a promote (said as a gate, not a pause). Webhook: called once (its run
 * `<revision>-<step>-gate` in status.canary.gateRuns); Passed → next step; Failed → Aborted with
 * rollbackOnFailure, else Paused until a promote or an abort.
 */
function gateStep(input: CanaryInput, canary: NginxCanaryStatus, gate: NginxGate): StepOutcome {
  const label = stepLabel(canary, input.canary?.steps?.length ?? 0);
  if (!gate.webhook)
    return {
      canary: { ...canary, phase: 'Paused', message: `Waiting at ${label}: a manual gate, until a promote.` },
      next: false,
    };
  const name = gateRunName(input.updateRevision, canary.step);
  const run = canary.gateRuns?.find((r) => r.name === name);
  if (!run) return { canary, callGate: { run: name, step: canary.step, webhook: gate.webhook }, next: false };
  if (run.phase === 'Passed') return { canary: advanced(canary, canary.step + 1, input.now), next: true };
  return failedStep(input, canary, { name, what: `gate ${name}`, why: run.message ?? 'failed' });
}

/**
 * A step whose run (an analysis run, a gate) failed: Aborted with rollbackOnFailure (abortedBy the run), else
 * Paused until a promote or an abort, saying which run failed and why.
 */
function failedStep(
  input: CanaryInput,
  canary: NginxCanaryStatus,
  run: { name: string; what: string; why: string },
): StepOutcome {
  if (input.rollbackOnFailure)
    return {
      canary: {
        ...canary,
        phase: 'Aborted',
        weight: 0,
        abortedBy: run.name,
        message: `Aborted: ${run.what} failed: ${run.why}.`,
      },
      next: false,
    };
  const label = stepLabel(canary, input.canary?.steps?.length ?? 0);
  const message = `Paused at ${label}: ${run.what} failed (${run.why}); promote or abort.`;
  return { canary: { ...canary, phase: 'Paused', message }, next: false };
}

const stepLabel = (canary: NginxCanaryStatus, steps: number) => `step ${canary.step + 1} of ${steps}`;

/**
 * An analysis step: its run (started now when missing) Successful → next step; Running → measured when due;
 * Failed → Aborted with rollbackOnFailure, else Paused; Inconclusive or Error → Paused.
 */
function analysisStep(input: CanaryInput, start: NginxCanaryStatus, templateName: string): StepOutcome {
  const { updateRevision, now } = input;
  const label = stepLabel(start, input.canary?.steps?.length ?? 0);
  const template = input.analysis?.find((t) => t.name === templateName);
  if (!template)
    return {
      canary: {
        ...start,
        phase: 'Paused',
        message: `Paused at ${label}: spec.analysis has no entry named ${templateName}.`,
      },
      next: false,
    };
  const name = runName(updateRevision, start.step, templateName);
  const runs = start.analysisRuns ?? [];
  let canary = start;
  let run = runs.find((r) => r.name === name);
  if (!run) {
    run = {
      name,
      templateName,
      step: start.step,
      phase: 'Running',
      startedAt: new Date(now).toISOString(),
      measurements: [],
    };
    canary = { ...canary, analysisRuns: [...runs, run] };
  }
  const phase = runPhase(template, run.measurements);
  if (phase === 'Successful') return { canary: advanced(canary, canary.step + 1, now), next: true };
  if (phase === 'Running') {
    const due = nextMeasurementIn(template, run, now);
    return due === 0
      ? { canary, measure: { run: name, template }, next: false }
      : { canary, recheckInMs: due, next: false };
  }
  if (phase === 'Failed')
    return failedStep(input, canary, { name, what: `analysis run ${name}`, why: failedMessage(run) });
  const message = `Paused at ${label}: analysis run ${name} is ${phase}: ${lastMessage(run)}`;
  return { canary: { ...canary, phase: 'Paused', message }, next: false };
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
    replicas: groups[0].target + groups[1].target, // trafficRouting: stable at spec.replicas beside the canary
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
