'use client';

import type { NginxAnalysisRun, NginxBlueGreenPhase } from '@ngx/nginx-api';
import { Badge, type Tone } from '@/components/ui/badge';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import {
  AbortButton,
  AbortedBy,
  ActionError,
  usePromoteAbort,
  type StrategyPanelProps,
} from '@/features/rollout/promote-abort';
import { formatDateTime } from '@/lib/ui/format';
import { AnalysisRunTable, GateRunLine } from '@/features/rollout/analysis-run-table';
import type { BlueGreenView } from '@/features/rollout/bluegreen-view';

const PHASE_TONES: Record<NginxBlueGreenPhase, Tone> = {
  Previewing: 'info',
  Paused: 'warning',
  Promoting: 'info',
  Promoted: 'success',
  Aborted: 'danger',
};

/** The two Services and the revision each selects now. */
function ServiceLines({ view }: { view: BlueGreenView }) {
  return (
    <ul className="small bluegreen-services">
      <li data-testid="bluegreen-active" data-revision={view.activeRevision}>
        Active Service <code>{view.activeService}</code> selects <code>{view.activeRevision}</code>
        {view.promotedAt && <span className="muted"> (switched {formatDateTime(view.promotedAt)})</span>}
      </li>
      <li data-testid="bluegreen-preview" data-revision={view.previewRevision ?? ''}>
        {view.previewRevision ? (
          <>
            Preview Service <code>{view.previewService}</code> selects <code>{view.previewRevision}</code>
            {view.phase === 'Aborted' ? (
              <span className="muted"> (aborted: its pods go)</span>
            ) : (
              view.previewReadyAt && (
                <span className="muted"> (ready {formatDateTime(view.previewReadyAt)})</span>
              )
            )}
          </>
        ) : (
          <>
            Preview Service <code>{view.previewService}</code>: nothing in preview,{' '}
            <code>{view.revision}</code> is active
          </>
        )}
      </li>
    </ul>
  );
}

function RunList({ title, runs, testId }: { title: string; runs: NginxAnalysisRun[]; testId: string }) {
  if (runs.length === 0) return null;
  return (
    <div data-testid={testId}>
      <h4 className="small">{title}</h4>
      {runs.map((run) => (
        <AnalysisRunTable key={run.name} run={run} />
      ))}
    </div>
  );
}

/**
 * A blue-green rollout: its phase, which revision the active and the preview Service select, the pre- and
 * post-promotion analysis runs; when `writable`, Promote (the preview becomes active) and Abort (asked first).
 */
export function BlueGreenPanel({ view, api, namespace, name, writable }: StrategyPanelProps<BlueGreenView>) {
  const actions = usePromoteAbort(api, namespace, name);

  return (
    <div className="canary" data-testid="bluegreen-panel" data-phase={view.phase}>
      <div className="panel-head">
        <h3>
          Blue-green of <code>{view.revision}</code>
        </h3>
        <Badge tone={PHASE_TONES[view.phase]}>{view.phase}</Badge>
        {writable && (
          <div className="actions">
            <button
              type="button"
              disabled={actions.busy || !view.canPromote}
              onClick={() => actions.run('promote')}
              data-testid="bluegreen-promote"
            >
              Promote
            </button>
            <AbortButton actions={actions} disabled={!view.canAbort} testId="bluegreen-abort" />
          </div>
        )}
      </div>
      <ServiceLines view={view} />
      {view.message && (
        <p className="small" data-testid="bluegreen-message">
          {view.message}
        </p>
      )}
      <AbortedBy run={view.abortedBy} testId="bluegreen-aborted-by" />
      <ActionError error={actions.error} />
      <RunList title="Before promotion" runs={view.preRuns} testId="bluegreen-pre-runs" />
      {view.gate && (
        <div className="small" data-testid="bluegreen-gate" data-kind={view.gate.kind}>
          {view.gate.kind === 'manual' ? (
            <p>Manual gate before promotion: it opens with Promote.</p>
          ) : view.gate.runs.length === 0 ? (
            <p>Webhook gate before promotion: called once the preview is ready.</p>
          ) : (
            view.gate.runs.map((run) => <GateRunLine key={run.name} run={run} />)
          )}
        </div>
      )}
      <RunList title="After the switch" runs={view.postRuns} testId="bluegreen-post-runs" />
      <ConfirmDialog
        {...actions.abortDialog}
        title="Abort the blue-green rollout?"
        description={
          view.previewRevision
            ? `The active Service ${view.activeService} stays on ${view.activeRevision} and the preview pods of ${view.revision} go. The spec keeps the new template; the rollout stays aborted until the template changes.`
            : `The active Service ${view.activeService} switches back to the old revision in one write, then the pods of ${view.revision} go. The spec keeps the new template; the rollout stays aborted until the template changes.`
        }
        confirmLabel="Abort rollout"
        testId="bluegreen-abort-dialog"
      />
    </div>
  );
}
