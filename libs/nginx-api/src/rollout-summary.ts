import {
  CONDITION_PROGRESSING,
  REASON_BLUE_GREEN_ABORTED,
  REASON_CANARY_ABORTED,
  REASON_DEADLINE_EXCEEDED,
  REASON_INVALID_CONFIG,
  REASON_ROLLED_BACK,
} from './names.js';
import type { Nginx } from './types.js';

/** Where one Nginx's rollout stands, read from its status alone: what `kubectl ngx get` and the rollout gauges show. */
export interface RolloutSummary {
  namespace: string;
  name: string;
  /** spec.replicas. */
  desired: number;
  /** status.readyReplicas (0 before the first status). */
  ready: number;
  /** The revision being rolled out to (status.updateRevision), when the controller has written one. */
  revision?: string;
  /** Its Progressing condition's reason (RollingUpdate, ReplicasReady, Canary, ProgressDeadlineExceeded, …). */
  phase: string;
  /**
   * Where its canary stands, when it has one: step index, of how many steps, the weight and the canary's phase.
   * The weight is the share of pods, or with trafficRouting the share of requests the route sends the canary.
   */
  canary?: { step: number; steps: number; weight: number; phase: string };
  /** The phase of its canary's newest analysis run (Running, Successful, Failed, Inconclusive, Error). */
  analysis?: string;
}

/** What the status says of `nginx`'s rollout. Pure. */
export function rolloutSummary(nginx: Nginx): RolloutSummary {
  const { namespace = '', name = '' } = nginx.metadata;
  const status = nginx.status;
  const progressing = status?.conditions?.find((c) => c.type === CONDITION_PROGRESSING);
  const canary = status?.canary;
  const newest = canary?.analysisRuns?.reduce((a, b) =>
    Date.parse(b.startedAt) >= Date.parse(a.startedAt) ? b : a,
  );
  const steps = nginx.spec.strategy?.canary?.steps?.length ?? 0;
  return {
    namespace,
    name,
    desired: nginx.spec.replicas,
    ready: status?.readyReplicas ?? 0,
    ...(status?.updateRevision ? { revision: status.updateRevision } : {}),
    phase: progressing?.reason ?? 'Unknown',
    ...(canary
      ? { canary: { step: canary.step, steps, weight: canaryWeight(nginx), phase: canary.phase } }
      : {}),
    ...(newest ? { analysis: newest.phase } : {}),
  };
}

/** The canary's weight: of the pods, or with trafficRouting of the requests (as written to the route). */
function canaryWeight(nginx: Nginx): number {
  const canary = nginx.status!.canary!;
  return nginx.spec.strategy?.canary?.trafficRouting ? (canary.trafficWeight ?? 0) : canary.weight;
}

/** Progressing reasons that end a rollout without reaching its revision. */
const FAILED_REASONS: ReadonlySet<string> = new Set([
  REASON_DEADLINE_EXCEEDED,
  REASON_CANARY_ABORTED,
  REASON_BLUE_GREEN_ABORTED,
  REASON_ROLLED_BACK,
  REASON_INVALID_CONFIG,
]);

/**
 * Whether `nginx`'s rollout of its spec has finished, as `kubectl rollout status` judges a Deployment: `done` once
 * the controller has observed the spec's generation and every desired pod of its revision is ready (Progressing
 * ReplicasReady); `failed` once the controller gave up on it (progress deadline exceeded, canary aborted, rolled
 * back, invalid config); `waiting` otherwise (paused included), with what it waits for.
 */
export function rolloutVerdict(nginx: Nginx): { state: 'done' | 'failed' | 'waiting'; message: string } {
  const generation = nginx.metadata.generation ?? 0;
  const status = nginx.status;
  if ((status?.observedGeneration ?? -1) < generation)
    return { state: 'waiting', message: `Waiting for the controller to observe generation ${generation}` };
  const progressing = status?.conditions?.find((c) => c.type === CONDITION_PROGRESSING);
  const current = progressing && (progressing.observedGeneration ?? generation) >= generation;
  if (current && FAILED_REASONS.has(progressing.reason))
    return { state: 'failed', message: `${progressing.reason}: ${progressing.message}` };
  const { desired, ready } = rolloutSummary(nginx);
  if (current && progressing.reason === 'ReplicasReady')
    return {
      state: 'done',
      message: `${ready} of ${desired} pods ready on revision ${status?.updateRevision ?? ''}`,
    };
  const updated = status?.updatedReplicas ?? 0;
  // What a canary or blue-green rollout waits for, in its words: a pause, a manual gate, a failed gate, …
  const rollout = [status?.canary, status?.blueGreen].find((r) => r?.revision === status?.updateRevision);
  const why = rollout?.message ? `: ${rollout.message}` : '';
  return {
    state: 'waiting',
    message: `Waiting for rollout to finish: ${updated} of ${desired} updated pods, ${ready} ready (${progressing?.reason ?? 'no status yet'}${why})`,
  };
}
