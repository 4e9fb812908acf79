'use client';

import { Badge, type Tone } from '@/components/ui/badge';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import {
  AbortButton,
  AbortedBy,
  ActionError,
  usePromoteAbort,
  type StrategyPanelProps,
} from '@/features/rollout/promote-abort';
import { AnalysisRunTable, GateRunLine } from '@/features/rollout/analysis-run-table';
import type { CanaryStepState, CanaryView } from '@/features/rollout/canary-view';

const STEP_TONES: Record<CanaryStepState, Tone> = {
  done: 'success',
  current: 'info',
  pending: 'neutral',
  aborted: 'danger',
};

const CONDITION_TONES: Record<string, Tone> = { True: 'success', False: 'danger', Unknown: 'neutral' };

/** The HTTPRoute the canary writes: its weight, the header route in it, and its status as the Gateways report it. */
function TrafficLine({ traffic }: { traffic: NonNullable<CanaryView['traffic']> }) {
  return (
    <div className="small" data-testid="canary-traffic" data-weight={traffic.weight}>
      <p>
        HTTPRoute <code>{traffic.route}</code>: {100 - traffic.weight}% stable, {traffic.weight}% canary
        {traffic.accepted && (
          <>
            {' '}
            <Badge tone={CONDITION_TONES[traffic.accepted] ?? 'neutral'}>Accepted {traffic.accepted}</Badge>
          </>
        )}
        {traffic.resolvedRefs && (
          <>
            {' '}
            <Badge tone={CONDITION_TONES[traffic.resolvedRefs] ?? 'neutral'}>
              ResolvedRefs {traffic.resolvedRefs}
            </Badge>
          </>
        )}
      </p>
      {traffic.message && <p className="muted">{traffic.message}</p>}
      {traffic.headerRoute && (
        <p data-testid="canary-header-route">
          Header route <code>{traffic.headerRoute.name}</code>: requests with {traffic.headerRoute.matches} go
          to the canary only.
        </p>
      )}
    </div>
  );
}

/**
 * The canary's steps in order, each marked done / current / pending / aborted, every analysis run beside the
 * step it gated; when `writable` and the canary is under way: Promote, Promote fully and Abort (asked first).
 */
export function CanarySteps({ view, api, namespace, name, writable }: StrategyPanelProps<CanaryView>) {
  const actions = usePromoteAbort(api, namespace, name);

  return (
    <div className="canary" data-testid="canary-steps" data-phase={view.phase}>
      <div className="panel-head">
        <h3>
          Canary of <code>{view.revision}</code>
        </h3>
        <Badge tone={view.phase === 'Aborted' ? 'danger' : view.phase === 'Promoted' ? 'success' : 'info'}>
          {view.phase}
        </Badge>
        <span className="muted small">
          {view.traffic
            ? `${view.traffic.weight}% of requests to the new revision (step weight ${view.weight}%)`
            : `${view.weight}% on the new revision`}
        </span>
        {writable && (
          <div className="actions">
            <button
              type="button"
              disabled={actions.busy || !view.canPromote}
              onClick={() => actions.run('promote')}
              data-testid="canary-promote"
            >
              Promote
            </button>
            <button
              type="button"
              disabled={actions.busy || !view.canPromote}
              onClick={() => actions.run('promote-fully')}
              data-testid="canary-promote-full"
            >
              Promote fully
            </button>
            <AbortButton actions={actions} disabled={!view.canAbort} testId="canary-abort" />
          </div>
        )}
      </div>
      {view.traffic && <TrafficLine traffic={view.traffic} />}
      {view.message && (
        <p className="small" data-testid="canary-message">
          {view.message}
        </p>
      )}
      <AbortedBy run={view.abortedBy} testId="canary-aborted-by" />
      <ActionError error={actions.error} />
      <ol className="canary-steps">
        {view.steps.map((step) => (
          <li key={step.index} data-testid="canary-step" data-state={step.state}>
            <Badge tone={STEP_TONES[step.state]}>{step.state}</Badge> {step.label}
            {step.runs.map((run) => (
              <AnalysisRunTable key={run.name} run={run} />
            ))}
            {step.gates.map((run) => (
              <GateRunLine key={run.name} run={run} />
            ))}
          </li>
        ))}
      </ol>
      <ConfirmDialog
        {...actions.abortDialog}
        title="Abort the canary?"
        description="Every pod goes back to the stable revision now. The spec keeps the new template; the canary stays aborted until the spec changes."
        confirmLabel="Abort canary"
        testId="canary-abort-dialog"
      />
    </div>
  );
}
