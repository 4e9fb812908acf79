'use client';

import { useCallback, useEffect, useReducer, useRef, useState, type Dispatch } from 'react';
import { errorMessage, type ApiClient, type AuditKind } from '@/lib/api/api-client';
import type { AuditViewFilters } from './audit-filters-url';
import {
  auditListReducer,
  initialAuditList,
  type AuditListAction,
  type AuditListState,
} from './audit-list-state';

/** The audit list and its controls. */
export interface AuditList<T> extends AuditListState<T> {
  /** Fetches the next page (no-op without one, or while one is loading). */
  loadMore: () => void;
  /** Fetches the first page again. */
  retry: () => void;
}

/**
 * Fetches one page into the list of `generation`: the first (no `continue`) replaces the rows, a later one adds to
 * them. A failure of an aborted request is not reported (the list it was for is gone).
 */
function fetchPage<T extends { id: number }>(
  api: ApiClient,
  dispatch: Dispatch<AuditListAction<T>>,
  kind: AuditKind,
  filters: AuditViewFilters,
  page: { limit: number; continue?: string },
  generation: number,
  signal: AbortSignal,
): void {
  const more = page.continue !== undefined;
  api.audit<T>(kind, filters, page, signal).then(
    (list) =>
      dispatch({ type: 'page', generation, items: list.items, continue: list.metadata.continue, more }),
    (error: unknown) => {
      if (!signal.aborted) dispatch({ type: 'failed', generation, error: errorMessage(error), more });
    },
  );
}

/**
 * One audit list (reconciles or changes) for `filters`, a page of `pageSize` at a time. Every request has its own
 * AbortController; a change of list or filters aborts what is in flight and starts over, and an answer that
 * arrives for an earlier list is dropped, so the list shown always matches the filters shown.
 */
export function useAuditList<T extends { id: number }>(
  api: ApiClient,
  kind: AuditKind,
  filters: AuditViewFilters,
  pageSize = 50,
): AuditList<T> {
  const [state, dispatch] = useReducer(auditListReducer<T>, undefined, initialAuditList<T>);
  const [attempt, setAttempt] = useState(0);
  const generation = useRef(0);
  const more = useRef<AbortController | null>(null);
  // The filters as a value: a new object with the same filters is the same list.
  const key = JSON.stringify([kind, filters]);

  useEffect(() => {
    const [listKind, listFilters] = JSON.parse(key) as [AuditKind, AuditViewFilters];
    const current = ++generation.current;
    const abort = new AbortController();
    more.current?.abort();
    dispatch({ type: 'reset', generation: current });
    fetchPage(api, dispatch, listKind, listFilters, { limit: pageSize }, current, abort.signal);
    return () => abort.abort();
  }, [api, key, pageSize, attempt]);

  useEffect(() => () => more.current?.abort(), []);

  const cursor = state.continue;
  const busy = state.loadingMore;
  const loadMore = useCallback(() => {
    if (!cursor || busy) return;
    const [listKind, listFilters] = JSON.parse(key) as [AuditKind, AuditViewFilters];
    const current = generation.current;
    const abort = new AbortController();
    more.current = abort;
    dispatch({ type: 'loadingMore', generation: current });
    fetchPage(
      api,
      dispatch,
      listKind,
      listFilters,
      { limit: pageSize, continue: cursor },
      current,
      abort.signal,
    );
  }, [api, key, pageSize, cursor, busy]);

  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { ...state, loadMore, retry };
}
