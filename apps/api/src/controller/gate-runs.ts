import type { NginxGateRun, NginxGateWebhook } from '@ngx/nginx-api';

/** A webhook gate due now: call it, record its verdict (withGateRun) and plan again. */
export interface GateCall {
  run: string;
  step: number;
  webhook: NginxGateWebhook;
}

/** The name of the run of a canary's gate at `step`, or of a blue-green rollout's pre-promotion gate. */
export const gateRunName = (revision: string, step: number | 'pre') => `${revision}-${step}-gate`;

/** `status` with `run` recorded among its gate runs (replacing one of the same name). */
export function withGateRun<S extends { gateRuns?: NginxGateRun[] }>(status: S, run: NginxGateRun): S {
  const others = (status.gateRuns ?? []).filter((r) => r.name !== run.name);
  return { ...status, gateRuns: [...others, run] };
}

/** What a gate's outcome says in the audit: "passed (HTTP 204)", "failed: no answer within 10 s". */
export function gateOutcomeText(run: Pick<NginxGateRun, 'phase' | 'code' | 'message'>): string {
  if (run.phase === 'Passed') return `passed${run.code === undefined ? '' : ` (HTTP ${run.code})`}`;
  return `failed: ${run.message ?? 'no reason given'}`;
}
