import type { Nginx, NginxAnalysisRun, NginxBlueGreenPhase, NginxGateRun } from '@ngx/nginx-api';

export interface BlueGreenView {
  /** The revision rolled out: previewed, then active. */
  revision: string;
  /** The revision the active Service selects. */
  activeRevision: string;
  /** The revision the preview Service selects while it is not yet active; undefined once it is. */
  previewRevision: string | undefined;
  phase: NginxBlueGreenPhase;
  message: string | undefined;
  /** The analysis run an automatic abort names, when one did. */
  abortedBy: string | undefined;
  /** The two Services' names: `<name>-active` and `<name>-preview` unless the strategy renames them. */
  activeService: string;
  previewService: string;
  previewReadyAt: string | undefined;
  promotedAt: string | undefined;
  /** The pre-promotion analysis runs (on the preview) and the post-promotion ones (after the switch), oldest first. */
  preRuns: NginxAnalysisRun[];
  postRuns: NginxAnalysisRun[];
  /** The pre-promotion gate: a webhook's verdict once it came, or `manual` (waits for a promote). */
  gate: { kind: 'webhook' | 'manual'; runs: NginxGateRun[] } | undefined;
  /** Promote makes sense: the preview is waiting or paused and not yet active. */
  canPromote: boolean;
  /** Abort makes sense: not yet promoted or aborted (also after the switch, until the old pods are gone). */
  canAbort: boolean;
}

/** Whether `run` is a pre- or post-promotion run: named `<revision>-pre-<template>` or `<revision>-post-<template>`. */
const isRunOf = (run: NginxAnalysisRun, when: 'pre' | 'post') =>
  run.name.endsWith(`-${when}-${run.templateName}`);

/**
 * The blue-green rollout of `nginx`, or undefined unless its strategy is BlueGreen and status.blueGreen is about
 * the update revision (the controller keeps no blue-green state for a first rollout, nor one left from an older
 * revision).
 */
export function blueGreenViewOf(nginx: Nginx): BlueGreenView | undefined {
  const blueGreen = nginx.status?.blueGreen;
  const strategy = nginx.spec?.strategy;
  if (strategy?.type !== 'BlueGreen' || !blueGreen) return undefined;
  if (blueGreen.revision !== nginx.status?.updateRevision) return undefined;
  const { revision, activeRevision, phase } = blueGreen;
  const active = revision === activeRevision;
  const runs = blueGreen.analysisRuns ?? [];
  return {
    revision,
    activeRevision,
    previewRevision: active ? undefined : revision,
    phase,
    message: blueGreen.message,
    abortedBy: blueGreen.abortedBy,
    activeService: strategy.blueGreen?.activeService ?? `${nginx.metadata.name}-active`,
    previewService: strategy.blueGreen?.previewService ?? `${nginx.metadata.name}-preview`,
    previewReadyAt: blueGreen.previewReadyAt,
    promotedAt: blueGreen.promotedAt,
    preRuns: runs.filter((run) => isRunOf(run, 'pre')),
    postRuns: runs.filter((run) => isRunOf(run, 'post')),
    gate: strategy.blueGreen?.prePromotionGate
      ? {
          kind: strategy.blueGreen.prePromotionGate.manual ? 'manual' : 'webhook',
          runs: blueGreen.gateRuns ?? [],
        }
      : undefined,
    canPromote: (phase === 'Previewing' || phase === 'Paused') && !active,
    canAbort: phase !== 'Promoted' && phase !== 'Aborted',
  };
}
