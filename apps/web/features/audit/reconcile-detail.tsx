import type { ReconcileItem } from '@/lib/api/api-client';
import { describeAction } from '@/features/audit/audit-actions';
import { formatDateTime } from '@/lib/ui/format';

/** A reconcile's expanded row: its error, every action, and the counts and identifiers it ran with. */
export function ReconcileDetail({ item }: { item: ReconcileItem }) {
  const { actions } = item;
  return (
    <>
      {item.error && (
        <div className="alert" style={{ whiteSpace: 'pre-wrap' }}>
          <strong>Error</strong>
          {item.error}
        </div>
      )}
      <div className="grid-2">
        <div>
          <h3 className="small muted" style={{ marginBottom: '0.35rem' }}>
            Actions ({actions.length})
          </h3>
          {actions.length ? (
            <ol style={{ margin: 0, paddingLeft: '1.25rem' }}>
              {actions.map((a, i) => (
                <li key={i}>{describeAction(a)}</li>
              ))}
            </ol>
          ) : (
            <p className="muted small">None.</p>
          )}
        </div>
        <dl className="props small">
          <dt>Desired / active / ready</dt>
          <dd>
            {item.desiredReplicas ?? '—'} / {item.activeReplicas ?? '—'} / {item.readyReplicas ?? '—'}
          </dd>
          <dt>Attempt</dt>
          <dd>{item.attempt}</dd>
          <dt>Generation</dt>
          <dd>{item.generation ?? '—'}</dd>
          <dt>resourceVersion</dt>
          <dd className="mono">{item.resourceVersion ?? '—'}</dd>
          <dt>Finished</dt>
          <dd className="mono">{formatDateTime(item.finishedAt)}</dd>
          <dt>Instance</dt>
          <dd className="mono">{item.instanceId}</dd>
        </dl>
      </div>
    </>
  );
}
