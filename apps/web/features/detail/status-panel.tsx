import type { Nginx } from '@ngx/nginx-api';
import { ReplicaProgress } from '@/components/ui/replica-progress';
import { desiredOf, readyOf } from '@/lib/nginx/nginx-view';

/** The status counts, the controller's message, the observed generation and the UID. */
export function StatusPanel({ nginx }: { nginx: Nginx }) {
  const status = nginx.status ?? {};
  const generation = nginx.metadata.generation;
  return (
    <section className="panel" aria-labelledby="status-title">
      <div className="panel-head">
        <h2 id="status-title">Status</h2>
      </div>
      <div className="panel-body">
        <dl className="props" data-testid="status">
          <dt>Ready</dt>
          <dd>
            <ReplicaProgress ready={readyOf(nginx)} desired={desiredOf(nginx)} />
          </dd>
          <dt>Pods</dt>
          <dd>
            {status.replicas ?? 0} existing · {status.updatedReplicas ?? 0} up-to-date ·{' '}
            {status.availableReplicas ?? 0} available
          </dd>
          <dt>Message</dt>
          <dd>{status.message ?? <span className="muted">none yet</span>}</dd>
          <dt>Generation</dt>
          <dd>
            {generation ?? '—'}{' '}
            {status.observedGeneration !== undefined && status.observedGeneration === generation ? (
              <span className="muted small">(observed)</span>
            ) : (
              <span className="muted small">(observed: {status.observedGeneration ?? 'not yet'})</span>
            )}
          </dd>
          <dt>UID</dt>
          <dd className="mono small">{nginx.metadata.uid}</dd>
        </dl>
      </div>
    </section>
  );
}
