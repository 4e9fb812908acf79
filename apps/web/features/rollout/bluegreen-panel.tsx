'use client';

import type { NginxAnalysisRun, NginxBlueGreenPhase } from '@ngx/nginx-api';
import { useState } from 'react';
import { Badge, type Tone } from '@/components/ui/badge';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import type { ApiClient } from '@/lib/api/api-client';
import { errorText } from '@/lib/query/query-state';
import { useNginxMutation } from '@/lib/query/use-nginx-mutation';
import { formatDateTime } from '@/lib/ui/format';
import { AnalysisRunTable } from '@/features/rollout/analysis-run-table';
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
            {view.previewReadyAt && (
              <span className="muted"> (ready {formatDateTime(view.previewReadyAt)})</span>
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
export function BlueGreenPanel({
  view,
  api,
  namespace,
  name,
  writable,
}: {
  view: BlueGreenView;
  api: ApiClient;
  namespace: string;
  name: string;
  writable: boolean;
}) {
  const [confirmingAbort, setConfirmingAbort] = useState(false);
  const act = useNginxMutation(
    { namespace, name },
    {
      mutationFn: (action: 'promote' | 'abort') =>
        action === 'abort' ? api.abort(namespace, name) : api.promote(namespace, name, false),
      onSuccess: (_updated, action) => {
        if (action === 'abort') setConfirmingAbort(false);
      },
    },
  );
  const busy = act.isPending;
  const error = errorText(act.error);

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
              disabled={busy || !view.canPromote}
              onClick={() => act.mutate('promote')}
              data-testid="bluegreen-promote"
            >
              Promote
            </button>
            <button
              type="button"
              className="danger"
              disabled={busy || !view.canAbort}
              onClick={() => setConfirmingAbort(true)}
              data-testid="bluegreen-abort"
            >
              Abort
            </button>
          </div>
        )}
      </div>
      <ServiceLines view={view} />
      {view.message && (
        <p className="small" data-testid="bluegreen-message">
          {view.message}
        </p>
      )}
      {view.abortedBy && (
        <p className="small" data-testid="bluegreen-aborted-by">
          Aborted by analysis run <code>{view.abortedBy}</code>.
        </p>
      )}
      {error && !confirmingAbort && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <RunList title="Before promotion" runs={view.preRuns} testId="bluegreen-pre-runs" />
      <RunList title="After the switch" runs={view.postRuns} testId="bluegreen-post-runs" />
      <ConfirmDialog
        open={confirmingAbort}
        title="Abort the blue-green rollout?"
        description={
          view.previewRevision
            ? `The active Service ${view.activeService} stays on ${view.activeRevision} and the preview pods of ${view.revision} go. The spec keeps the new template; the rollout stays aborted until the template changes.`
            : `The active Service ${view.activeService} switches back to the old revision in one write, then the pods of ${view.revision} go. The spec keeps the new template; the rollout stays aborted until the template changes.`
        }
        error={error}
        busy={busy}
        confirmLabel="Abort rollout"
        busyLabel="Aborting…"
        tone="danger"
        testId="bluegreen-abort-dialog"
        onCancel={() => setConfirmingAbort(false)}
        onConfirm={() => act.mutate('abort')}
      />
    </div>
  );
}
