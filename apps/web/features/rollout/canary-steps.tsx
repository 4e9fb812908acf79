'use client';

import { useState } from 'react';
import { Badge, type Tone } from '@/components/ui/badge';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { ApiClient } from '@/lib/api/api-client';
import { errorText } from '@/lib/query/query-state';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';
import { AnalysisRunTable } from '@/features/rollout/analysis-run-table';
import type { CanaryStepState, CanaryView } from '@/features/rollout/canary-view';

const STEP_TONES: Record<CanaryStepState, Tone> = {
  done: 'success',
  current: 'info',
  pending: 'neutral',
  aborted: 'danger',
};

/** What the canary's buttons ask of the server. */
type CanaryAction = 'promote' | 'promote-fully' | 'abort';

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
export function CanarySteps({
  view,
  api,
  namespace,
  name,
  writable,
}: {
  view: CanaryView;
  api: ApiClient;
  namespace: string;
  name: string;
  writable: boolean;
}) {
  const [confirmingAbort, setConfirmingAbort] = useState(false);
  const act = useNginxMutation(
    { namespace, name },
    {
      mutationFn: (action: CanaryAction) =>
        action === 'abort'
          ? api.abort(namespace, name)
          : api.promote(namespace, name, action === 'promote-fully'),
      onSuccess: (_updated, action) => {
        if (action === 'abort') setConfirmingAbort(false);
      },
    },
  );
  const busy = act.isPending;
  const error = errorText(act.error);

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
              disabled={busy || !view.canPromote}
              onClick={() => act.mutate('promote')}
              data-testid="canary-promote"
            >
              Promote
            </button>
            <button
              type="button"
              disabled={busy || !view.canPromote}
              onClick={() => act.mutate('promote-fully')}
              data-testid="canary-promote-full"
            >
              Promote fully
            </button>
            <button
              type="button"
              className="danger"
              disabled={busy || !view.canAbort}
              onClick={() => setConfirmingAbort(true)}
              data-testid="canary-abort"
            >
              Abort
            </button>
          </div>
        )}
      </div>
      {view.traffic && <TrafficLine traffic={view.traffic} />}
      {view.message && (
        <p className="small" data-testid="canary-message">
          {view.message}
        </p>
      )}
      {view.abortedBy && (
        <p className="small" data-testid="canary-aborted-by">
          Aborted by analysis run <code>{view.abortedBy}</code>.
        </p>
      )}
      {error && !confirmingAbort && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <ol className="canary-steps">
        {view.steps.map((step) => (
          <li key={step.index} data-testid="canary-step" data-state={step.state}>
            <Badge tone={STEP_TONES[step.state]}>{step.state}</Badge> {step.label}
            {step.runs.map((run) => (
              <AnalysisRunTable key={run.name} run={run} />
            ))}
          </li>
        ))}
      </ol>
      <ConfirmDialog
        open={confirmingAbort}
        title="Abort the canary?"
        description="Every pod goes back to the stable revision now. The spec keeps the new template; the canary stays aborted until the spec changes."
        error={error}
        busy={busy}
        confirmLabel="Abort canary"
        busyLabel="Aborting…"
        tone="danger"
        testId="canary-abort-dialog"
        onCancel={() => setConfirmingAbort(false)}
        onConfirm={() => act.mutate('abort')}
      />
    </div>
  );
}
