import type { Nginx, NginxAnalysisRun, NginxCanaryPhase, NginxCanaryStep } from '@ngx/nginx-api';

/** How far the canary has got with one step. */
export type CanaryStepState = 'done' | 'current' | 'pending' | 'aborted';

export interface CanaryStepView {
  index: number;
  /** "Set weight 20%", "Pause 60s", "Pause until promoted", "Analysis error-rate". */
  label: string;
  state: CanaryStepState;
  /** The analysis runs that gated this step, oldest first (an analysis step's, usually one). */
  runs: NginxAnalysisRun[];
}

export interface CanaryView {
  /** The revision the canary moves to. */
  revision: string;
  phase: NginxCanaryPhase;
  /** Share of pods the current step puts on the new revision. */
  weight: number;
  steps: CanaryStepView[];
  message: string | undefined;
  /** The run an automatic abort names, when one did. */
  abortedBy: string | undefined;
  /** Promote (to the next step) and Promote fully make sense: the canary is under way, not aborted or done. */
  canPromote: boolean;
  /** Abort makes sense: the canary is under way and not already aborted or promoted. */
  canAbort: boolean;
}

function stepLabel(step: NginxCanaryStep): string {
  if (step.setWeight !== undefined) return `Set weight ${step.setWeight}%`;
  if (step.pause) return step.pause.duration ? `Pause ${step.pause.duration}` : 'Pause until promoted';
  if (step.analysis) return `Analysis ${step.analysis.templateName}`;
  return 'Unknown step';
}

/**
 * The canary of `nginx` step by step, or undefined when its strategy is not Canary or the controller has not
 * started one (no status.canary). A status naming another revision than the status' update revision is an old
 * canary the controller has not replaced yet: shown as it stands.
 */
export function canaryViewOf(nginx: Nginx): CanaryView | undefined {
  const canary = nginx.status?.canary;
  if (nginx.spec?.strategy?.type !== 'Canary' || !canary) return undefined;
  const steps = nginx.spec.strategy.canary?.steps ?? [];
  const runs = canary.analysisRuns ?? [];
  const stateOf = (index: number): CanaryStepState => {
    if (canary.phase === 'Promoted') return 'done';
    if (index < canary.step) return 'done';
    if (index === canary.step) return canary.phase === 'Aborted' ? 'aborted' : 'current';
    return 'pending';
  };
  const underWay = canary.phase === 'Progressing' || canary.phase === 'Paused';
  return {
    revision: canary.revision,
    phase: canary.phase,
    weight: canary.weight,
    steps: steps.map((step, index) => ({
      index,
      label: stepLabel(step),
      state: stateOf(index),
      runs: runs.filter((run) => run.step === index),
    })),
    message: canary.message,
    abortedBy: canary.abortedBy,
    canPromote: underWay,
    canAbort: underWay,
  };
}
