import type {
  Nginx,
  NginxAnalysisMeasurement,
  NginxAnalysisTemplate,
  NginxBlueGreenStatus,
  NginxGateRun,
} from '@ngx/nginx-api';
import { planBlueGreen, type BlueGreenInput, type BlueGreenPlan } from './bluegreen-plan.js';
import { withMeasurement } from './canary-plan.js';
import { withGateRun, type GateCall } from './gate-runs.js';
import type { ReconcileReport } from './reconcile-report.js';
import type { RolloutServiceSync } from './rollout-service-sync.js';

/** How long a blue-green rollout held by its Services waits before looking again: no event wakes it. */
export const SERVICE_RECHECK_MS = 5_000;

/**
 * A blue-green plan with its Services made to select what it says first: a measurement due is taken, or a webhook
 * gate due is called, and the rollout planned again with it; then the active Service is switched (or switched back) and the preview Service
 * pointed, each in one write; only then do the plan's pods move. So an abort's switch back lands before the
 * preview's pods are deleted, and a promotion's switch lands before the old pods may go.
 *
 * A Service that cannot be kept (one of the name this Nginx does not control) holds a rollout in progress where
 * it is, Paused with why, pods untouched, and is looked at again after SERVICE_RECHECK_MS.
 */
export async function blueGreenPlan(input: {
  nginx: Nginx;
  planInput: BlueGreenInput;
  services: RolloutServiceSync;
  report: ReconcileReport;
  measure: (template: NginxAnalysisTemplate) => Promise<NginxAnalysisMeasurement>;
  /** Calls a webhook gate (recording its verdict in the audit) and answers its run. */
  gate: (call: GateCall) => Promise<NginxGateRun>;
}): Promise<BlueGreenPlan> {
  const { nginx, planInput, services, report } = input;
  let plan = planBlueGreen(planInput);
  if (plan.measure && plan.blueGreen) {
    const { run, template } = plan.measure;
    const measurement = await input.measure(template);
    report.record({ kind: 'analysis', object: run, measurement });
    plan = planBlueGreen({
      ...planInput,
      previous: withMeasurement(plan.blueGreen, run, template, measurement),
    });
    // A second measurement due in the same sync is taken on the next one.
    if (plan.measure) plan = { ...plan, recheckInMs: 0 };
  }
  if (plan.callGate && plan.blueGreen && !plan.measure) {
    const run = await input.gate(plan.callGate);
    plan = planBlueGreen({ ...planInput, previous: withGateRun(plan.blueGreen, run) });
  }
  const problem = await services.ensure(
    nginx,
    { active: plan.activeRevision, preview: plan.previewRevision },
    report,
  );
  if (!problem) return plan;
  // Where the rollout stood before this sync: nothing it planned (a switch above all) has happened.
  const previous = planInput.previous;
  const before = previous?.revision === planInput.updateRevision ? previous : plan.blueGreen;
  const held: NginxBlueGreenStatus | undefined = before && {
    ...before,
    ...(before.phase === 'Promoted' || before.phase === 'Aborted' ? {} : { phase: 'Paused' }),
    message: `Waiting: ${problem.message}.`,
  };
  return {
    ...plan,
    activeRevision: before?.activeRevision ?? plan.activeRevision,
    create: 0,
    createStable: 0,
    delete: [],
    blueGreen: held,
    recheckInMs: Math.min(plan.recheckInMs ?? SERVICE_RECHECK_MS, SERVICE_RECHECK_MS),
  };
}
