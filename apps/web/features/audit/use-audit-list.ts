'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { ApiClient, AuditKind } from '@/lib/api/api-client';
import type { AuditViewFilters } from '@/features/audit/audit-filters-url';
import { auditListOf, type AuditListState } from '@/features/audit/audit-list-state';
import { queryKeys } from '@/lib/query/query-keys';

/** The audit list and its controls. */
export interface AuditList<T> extends AuditListState<T> {
  /** Fetches the next page (no-op without one, or while one is loading). */
  loadMore: () => void;
  /** Fetches the first page again. */
  retry: () => void;
}

/**
 * One audit list (reconciles or changes) for `filters`, a page of `pageSize` at a time, as one paged query keyed
 * by the list and its filters: a change of list or filters aborts what is in flight and starts over (an answer
 * for another list never reaches this one), so the list shown always matches the filters shown.
 */
export function useAuditList<T extends { id: number }>(
  api: ApiClient,
  kind: AuditKind,
  filters: AuditViewFilters,
  pageSize = 50,
): AuditList<T> {
  const query = useInfiniteQuery({
    queryKey: queryKeys.audit(kind, filters, pageSize),
    queryFn: ({ pageParam, signal }) =>
      api.audit<T>(
        kind,
        filters,
        pageParam === undefined ? { limit: pageSize } : { limit: pageSize, continue: pageParam },
        signal,
      ),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.metadata.continue || undefined,
  });
  const state = auditListOf<T>({
    pages: query.data?.pages,
    isFetching: query.isFetching,
    isFetchingNextPage: query.isFetchingNextPage,
    isFetchNextPageError: query.isFetchNextPageError,
    error: query.error,
  });

  const { fetchNextPage, refetch } = query;
  const cursor = state.continue;
  const busy = state.loadingMore;
  const loadMore = useCallback(() => {
    if (!cursor || busy) return;
    void fetchNextPage({ cancelRefetch: false });
  }, [cursor, busy, fetchNextPage]);
  const retry = useCallback(() => void refetch(), [refetch]);
  return { ...state, loadMore, retry };
}
