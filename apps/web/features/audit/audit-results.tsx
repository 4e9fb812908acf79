'use client';

import { ChangeTable } from '@/features/audit/change-table';
import { ReconcileTable } from '@/features/audit/reconcile-table';
import { EmptyState } from '@/components/ui/empty-state';
import { ErrorState } from '@/components/ui/error-state';
import { Skeleton } from '@/components/ui/skeleton';
import type { AuditKind, ChangeItem, ReconcileItem } from '@/lib/api/api-client';
import type { AuditList } from '@/features/audit/use-audit-list';

/** The tab panel of one list: loading, its error with Retry, empty (why), or the table and the next page. */
export function AuditResults({
  kind,
  list,
  filtered,
  onClear,
}: {
  kind: AuditKind;
  list: AuditList<ReconcileItem | ChangeItem>;
  /** Whether the user's filters may be why the list is empty. */
  filtered: boolean;
  onClear: () => void;
}) {
  const what = kind === 'reconciles' ? 'reconciles' : 'changes';
  return (
    <section className="panel" id="audit-panel" role="tabpanel" aria-labelledby={`tab-${kind}`}>
      <h2 className="visually-hidden">{kind === 'reconciles' ? 'Reconcile timeline' : 'Change log'}</h2>
      {list.phase === 'loading' && <Skeleton rows={8} label={`Loading ${what}`} />}
      {list.phase === 'error' && (
        <ErrorState title={`Could not load the ${what}`} message={list.error ?? ''} onRetry={list.retry} />
      )}
      {list.phase === 'ready' && list.items.length === 0 && (
        <EmptyState
          title={filtered ? `No ${what} match these filters` : `No ${what} recorded yet`}
          action={
            filtered ? (
              <button type="button" onClick={onClear}>
                Clear the filters
              </button>
            ) : undefined
          }
        >
          {kind === 'reconciles'
            ? 'A reconcile is recorded when the controller creates or deletes pods or the objects it owns, writes status, or fails.'
            : 'Every create, update, patch, apply, rollback and delete of an Nginx through the API is recorded, refused ones too.'}
        </EmptyState>
      )}
      {list.phase === 'ready' && list.items.length > 0 && (
        <>
          {kind === 'reconciles' ? (
            <ReconcileTable items={list.items as ReconcileItem[]} />
          ) : (
            <ChangeTable items={list.items as ChangeItem[]} />
          )}
          <div className="load-more">
            {list.moreError && (
              <span className="field-error" role="alert" style={{ marginRight: '0.75rem' }}>
                {list.moreError}
              </span>
            )}
            {list.continue ? (
              <button type="button" onClick={list.loadMore} disabled={list.loadingMore}>
                {list.loadingMore ? 'Loading…' : 'Load more'}
              </button>
            ) : (
              <span className="muted small">
                {list.items.length} {what} · end of the list
              </span>
            )}
          </div>
        </>
      )}
    </section>
  );
}
