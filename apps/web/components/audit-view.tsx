'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import {
  errorMessage,
  type AuditFilters as Filters,
  type AuditKind,
  type ChangeItem,
  type ReconcileItem,
} from '../lib/api-client';
import { AuditFilters, RESULTS } from './audit-filters';
import { ChangeTable } from './change-table';
import { EmptyState } from './empty-state';
import { ErrorState } from './error-state';
import { ExportButtons } from './export-buttons';
import { ReconcileTable } from './reconcile-table';
import { useReadySession } from './session-provider';
import { Skeleton } from './skeleton';

const PAGE_SIZE = 50;
const TABS: { kind: AuditKind; label: string }[] = [
  { kind: 'reconciles', label: 'Reconciles' },
  { kind: 'changes', label: 'Changes' },
];

type Items = ReconcileItem[] | ChangeItem[];

interface ListState {
  phase: 'loading' | 'ready' | 'error';
  items: Items;
  continue?: string;
  error?: string;
  loadingMore?: boolean;
  moreError?: string;
}

/** Audit history: the reconcile timeline and the change log, filtered, paged and exportable. */
export function AuditView() {
  const { api, identity } = useReadySession();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const kind: AuditKind = params.get('tab') === 'changes' ? 'changes' : 'reconciles';
  const limited = identity.namespaces;

  const filters = useMemo<Filters>(() => {
    const get = (key: string) => params.get(key) || undefined;
    const result = get('result');
    const namespace = get('namespace');
    return {
      // A limited token must name one of its namespaces.
      namespace: limited ? (namespace && limited.includes(namespace) ? namespace : limited[0]) : namespace,
      name: get('name'),
      result: result && RESULTS[kind].some((r) => r.value === result) ? result : undefined,
      since: get('since'),
      until: get('until'),
    };
  }, [params, kind, limited]);
  const filterKey = JSON.stringify(filters);

  const [state, setState] = useState<ListState>({ phase: 'loading', items: [] });
  const [attempt, setAttempt] = useState(0);
  const request = useRef(0);

  useEffect(() => {
    const abort = new AbortController();
    const id = ++request.current;
    setState({ phase: 'loading', items: [] });
    api
      .audit<ReconcileItem | ChangeItem>(
        kind,
        JSON.parse(filterKey) as Filters,
        { limit: PAGE_SIZE },
        abort.signal,
      )
      .then((list) => {
        if (id === request.current)
          setState({ phase: 'ready', items: list.items as Items, continue: list.metadata.continue });
      })
      .catch((e: unknown) => {
        if (!abort.signal.aborted) setState({ phase: 'error', items: [], error: errorMessage(e) });
      });
    return () => abort.abort();
  }, [api, kind, filterKey, attempt]);

  const loadMore = useCallback(async () => {
    if (!state.continue) return;
    const id = request.current;
    setState((s) => ({ ...s, loadingMore: true, moreError: undefined }));
    try {
      const list = await api.audit<ReconcileItem | ChangeItem>(kind, filters, {
        limit: PAGE_SIZE,
        continue: state.continue,
      });
      if (id !== request.current) return;
      setState((s) => ({
        ...s,
        items: [...s.items, ...list.items] as Items,
        continue: list.metadata.continue,
        loadingMore: false,
      }));
    } catch (e) {
      setState((s) => ({ ...s, loadingMore: false, moreError: errorMessage(e) }));
    }
  }, [api, kind, filters, state.continue]);

  const navigate = (next: { tab?: AuditKind; filters?: Filters }) => {
    const tab = next.tab ?? kind;
    const f = next.filters ?? filters;
    const search = new URLSearchParams();
    if (tab !== 'reconciles') search.set('tab', tab);
    for (const [key, value] of Object.entries(f)) {
      if (!value) continue;
      if (key === 'result' && !RESULTS[tab].some((r) => r.value === value)) continue;
      search.set(key, value);
    }
    const query = search.toString();
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };

  const onTabKey = (event: KeyboardEvent<HTMLButtonElement>) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const next = TABS[(TABS.findIndex((t) => t.kind === kind) + 1) % TABS.length]!;
    navigate({ tab: next.kind });
    requestAnimationFrame(() => document.getElementById(`tab-${next.kind}`)?.focus());
  };

  // A limited token's namespace is not a filter the user chose.
  const filtered = Boolean(
    filters.name || filters.result || filters.since || filters.until || (!limited && filters.namespace),
  );
  const what = kind === 'reconciles' ? 'reconciles' : 'changes';

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Audit history</h1>
          <p className="subtitle">
            Reconciles that acted or failed, and every write made through the API, newest first.
          </p>
        </div>
        <div className="actions">
          <ExportButtons api={api} kind={kind} filters={filters} />
        </div>
      </div>

      <div className="tabs" role="tablist" aria-label="Audit records">
        {TABS.map((tab) => (
          <button
            key={tab.kind}
            id={`tab-${tab.kind}`}
            type="button"
            role="tab"
            aria-selected={kind === tab.kind}
            aria-controls="audit-panel"
            tabIndex={kind === tab.kind ? 0 : -1}
            onClick={() => navigate({ tab: tab.kind })}
            onKeyDown={onTabKey}
          >
            {tab.label}
          </button>
        ))}
      </div>

      <AuditFilters
        key={kind}
        kind={kind}
        filters={filters}
        namespaces={limited}
        onApply={(f) => navigate({ filters: f })}
      />

      <section className="panel" id="audit-panel" role="tabpanel" aria-labelledby={`tab-${kind}`}>
        <h2 className="visually-hidden">{kind === 'reconciles' ? 'Reconcile timeline' : 'Change log'}</h2>
        {state.phase === 'loading' && <Skeleton rows={8} label={`Loading ${what}`} />}
        {state.phase === 'error' && (
          <ErrorState
            title={`Could not load the ${what}`}
            message={state.error ?? ''}
            onRetry={() => setAttempt((n) => n + 1)}
          />
        )}
        {state.phase === 'ready' && state.items.length === 0 && (
          <EmptyState
            title={filtered ? `No ${what} match these filters` : `No ${what} recorded yet`}
            action={
              filtered ? (
                <button type="button" onClick={() => navigate({ filters: {} })}>
                  Clear the filters
                </button>
              ) : undefined
            }
          >
            {kind === 'reconciles'
              ? 'A reconcile is recorded when the controller creates or deletes pods, writes status, or fails.'
              : 'Every create, update, patch and delete of an Nginx through the API is recorded, refused ones too.'}
          </EmptyState>
        )}
        {state.phase === 'ready' && state.items.length > 0 && (
          <>
            {kind === 'reconciles' ? (
              <ReconcileTable items={state.items as ReconcileItem[]} />
            ) : (
              <ChangeTable items={state.items as ChangeItem[]} />
            )}
            <div className="load-more">
              {state.moreError && (
                <span className="field-error" role="alert" style={{ marginRight: '0.75rem' }}>
                  {state.moreError}
                </span>
              )}
              {state.continue ? (
                <button type="button" onClick={loadMore} disabled={state.loadingMore}>
                  {state.loadingMore ? 'Loading…' : 'Load more'}
                </button>
              ) : (
                <span className="muted small">
                  {state.items.length} {what} · end of the list
                </span>
              )}
            </div>
          </>
        )}
      </section>
    </>
  );
}
