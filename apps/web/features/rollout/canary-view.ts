import type {
  Nginx,
  NginxAnalysisRun,
  NginxCanaryPhase,
  NginxCanaryStep,
  NginxGateRun,
  NginxHeaderMatch,
} from '@ngx/nginx-api';

/** How far the canary has got with one step. */
export type CanaryStepState = 'done' | 'current' | 'pending' | 'aborted';

export interface CanaryStepView {
  index: number;
  /** "Set weight 20%", "Pause 60s", "Pause until promoted", "Analysis error-rate". */
  label: string;
  state: CanaryStepState;
  /** The analysis runs that gated this step, oldest first (an analysis step's, usually one). */
  runs: NginxAnalysisRun[];
  /** A webhook gate step's verdict, once it came. */
  gates: NginxGateRun[];
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
  /** With trafficRouting: the share of requests the HTTPRoute sends the canary, and the route as read back. */
  traffic?: TrafficView;
}

export interface TrafficView {
  /** "namespace/name" of the HTTPRoute. */
  route: string;
  /** The canary's weight as last written to the route (status.canary.trafficWeight). */
  weight: number;
  /** The header route in the route now, with its matches in words ("x-beta = yes"), when there is one. */
  headerRoute?: { name: string; matches: string };
  /** The route's Accepted and ResolvedRefs as its Gateways report them, and why not, when read. */
  accepted?: string;
  resolvedRefs?: string;
  message?: string;
}

/** A setHeaderRoute match in words: `x-beta = yes`, `x-version starts with v2.`, `ua ~ /bot/`. */
export function headerMatchText(match: NginxHeaderMatch): string {
  const { exact, prefix, regex } = match.headerValue;
  if (exact !== undefined) return `${match.headerName} = ${exact}`;
  if (prefix !== undefined) return `${match.headerName} starts with ${prefix}`;
  return `${match.headerName} ~ /${regex}/`;
}

/** Where a gate's webhook is, without its query (which may carry a token): `https://smoke.example.com/run`. */
export function webhookWhere(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}

function stepLabel(step: NginxCanaryStep): string {
  if (step.setWeight !== undefined) return `Set weight ${step.setWeight}%`;
  if (step.pause) return step.pause.duration ? `Pause ${step.pause.duration}` : 'Pause until promoted';
  if (step.analysis) return `Analysis ${step.analysis.templateName}`;
  if (step.gate?.manual) return 'Manual gate: waits for a promote';
  if (step.gate?.webhook) return `Gate: webhook ${webhookWhere(step.gate.webhook.url)}`;
  if (step.setHeaderRoute)
    return `Header route ${step.setHeaderRoute.name}: ${step.setHeaderRoute.match.map(headerMatchText).join(', ')}`;
  if (step.setCanaryScale) {
    const { replicas, weight } = step.setCanaryScale;
    if (replicas !== undefined) return `Canary scale ${replicas} pods`;
    if (weight !== undefined) return `Canary scale ${weight}% of the pods`;
    return 'Canary pods follow the traffic weight';
  }
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
      gates: (canary.gateRuns ?? []).filter((run) => run.step === index),
    })),
    message: canary.message,
    abortedBy: canary.abortedBy,
    canPromote: underWay,
    canAbort: underWay,
    ...trafficOf(nginx),
  };
}

/** The canary's traffic through its HTTPRoute, when the strategy routes traffic. */
function trafficOf(nginx: Nginx): { traffic?: TrafficView } {
  const canary = nginx.status?.canary;
  const gateway = nginx.spec?.strategy?.canary?.trafficRouting?.gatewayAPI;
  if (!canary || !gateway) return {};
  const steps = nginx.spec.strategy?.canary?.steps ?? [];
  const header = steps.find((step) => step.setHeaderRoute?.name === canary.headerRoute)?.setHeaderRoute;
  const read = canary.httpRoute;
  return {
    traffic: {
      route: `${gateway.namespace ?? nginx.metadata.namespace}/${gateway.httpRoute}`,
      weight: canary.trafficWeight ?? 0,
      ...(header
        ? { headerRoute: { name: header.name, matches: header.match.map(headerMatchText).join(', ') } }
        : {}),
      ...(read?.accepted ? { accepted: read.accepted } : {}),
      ...(read?.resolvedRefs ? { resolvedRefs: read.resolvedRefs } : {}),
      ...(read?.message ? { message: read.message } : {}),
    },
  };
}
