'use client';

import { podTemplateOf, type Nginx, type RevisionItem } from '@ngx/nginx-api';
import { useCallback } from 'react';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorState } from '@/components/ui/error-state';
import { ReadOnlyNote } from '@/components/ui/read-only-note';
import { useReadySession } from '@/components/shell/session-provider';
import { Skeleton } from '@/components/ui/skeleton';
import { rollbackSummary } from '@/features/revisions/revision-diff';
import { useRevisions, useRollback } from '@/features/revisions/use-revisions';
import { RevisionCompare } from './revision-compare';
import { RevisionTable } from './revision-table';
import { RollbackDialog } from './rollback-dialog';
import './revisions.css';

/**
 * The revision history of `nginx`: the revisions the controller keeps (refetched as the spec and the rollout move
 * on), a comparison of any two, and — when `writable` — "Roll back to this" on every revision but the current one,
 * after a confirmation naming what changes. Otherwise `refusal` (from `writeRefusal`) says once why there is no
 * rollback. A 409 (the Nginx changed since the history was read) writes nothing and offers a reload.
 */
export function RevisionHistory({
  nginx,
  writable,
  refusal,
}: {
  nginx: Nginx;
  writable: boolean;
  refusal: string | null;
}) {
  const { api } = useReadySession();
  const namespace = nginx.metadata.namespace ?? '';
  const name = nginx.metadata.name ?? '';
  const status = nginx.status ?? {};
  const refreshKey = `${nginx.metadata.generation}|${status.updateRevision}|${status.currentRevision}`;
  const { phase, list, error, reload } = useRevisions(api, namespace, name, refreshKey);
  const rollback = useRollback(api, namespace, name, reload);

  const { open } = rollback;
  const startRollback = useCallback(
    (item: RevisionItem) => {
      if (!list) return;
      open({
        revision: item,
        summary: rollbackSummary(podTemplateOf(nginx.spec), item.template),
        base: nginx,
      });
    },
    [list, nginx, open],
  );

  const count = list?.items.length;
  return (
    <section className="panel" aria-labelledby="revisions-title" data-testid="revision-history">
      <div className="panel-head">
        <h2 id="revisions-title">Revision history</h2>
        {count !== undefined && (
          <span className="muted small">
            {count} revision{count === 1 ? '' : 's'} kept
          </span>
        )}
        {phase === 'loading' && list && (
          <span className="muted small" role="status">
            Refreshing…
          </span>
        )}
      </div>
      <div className="panel-body">
        {!writable && <ReadOnlyNote reason={refusal ?? 'You may not roll back this Nginx.'} />}
        {rollback.done && (
          <p className="alert info" role="status" data-testid="rollback-done">
            {rollback.done}
          </p>
        )}
        {rollback.conflict && (
          <div className="alert" role="alert" data-testid="rollback-conflict">
            <strong>Someone changed this Nginx since the history was loaded.</strong>
            <span className="small">Nothing was rolled back. {rollback.conflict}</span>{' '}
            <button type="button" onClick={rollback.reloadAfterConflict}>
              Reload
            </button>
          </div>
        )}
        {phase === 'error' && list && (
          <p className="alert" role="alert">
            Could not refresh the revisions: {error}{' '}
            <button type="button" onClick={reload}>
              Retry
            </button>
          </p>
        )}
        {!list ? (
          phase === 'error' ? (
            <ErrorState title="Could not load the revisions" message={error ?? ''} onRetry={reload} />
          ) : (
            <Skeleton rows={3} label="Loading revisions" />
          )
        ) : list.items.length === 0 ? (
          <EmptyState title="No revisions yet" testId="revisions-empty">
            The controller records a revision for each pod template it rolls out.
          </EmptyState>
        ) : (
          <>
            <RevisionTable items={list.items} onRollBack={writable ? startRollback : undefined} />
            <RevisionCompare items={list.items} />
          </>
        )}
      </div>
      <RollbackDialog
        target={rollback.target}
        busy={rollback.busy}
        error={rollback.error}
        paused={nginx.spec.paused === true}
        onCancel={rollback.cancel}
        onConfirm={() => void rollback.confirm()}
      />
    </section>
  );
}
