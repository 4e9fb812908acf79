import type { AuditList as AuditPage } from '@/lib/api/api-client';
import { errorText } from '@/lib/query/query-state';

/** One list of audit records as the page shows it. */
export interface AuditListState<T> {
  phase: 'loading' | 'ready' | 'error';
  items: T[];
  /** The cursor of the next page, when there is one. */
  continue?: string;
  /** Why the first page failed (phase `error`). */
  error?: string;
  loadingMore: boolean;
  /** Why the latest next page failed; the rows already shown stay. */
  moreError?: string;
}

/** What `auditListOf` needs of the list's paged query. */
export interface AuditQueryView<T> {
  /** The pages received so far, first first; undefined until the first arrives. */
  pages: AuditPage<T>[] | undefined;
  isFetching: boolean;
  isFetchingNextPage: boolean;
  isFetchNextPageError: boolean;
  error: unknown;
}

/** The records of all pages, in order, each once (a record may move onto the next page while paging). */
export function auditItems<T extends { id: number }>(pages: readonly AuditPage<T>[]): T[] {
  const seen = new Set<number>();
  const items: T[] = [];
  for (const page of pages)
    for (const item of page.items) {
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      items.push(item);
    }
  return items;
}

/**
 * The list the page shows for its paged query: `loading` until the first page is there (and again while it is
 * asked for after a failure), `error` when it failed, else `ready` with every page's records; a failed next page
 * keeps the rows and says why beside "Load more", until it is tried again.
 */
export function auditListOf<T extends { id: number }>(query: AuditQueryView<T>): AuditListState<T> {
  const { pages } = query;
  if (!pages) {
    const failed = query.error != null && !query.isFetching;
    return failed
      ? { phase: 'error', items: [], error: errorText(query.error), loadingMore: false }
      : { phase: 'loading', items: [], loadingMore: false };
  }
  const moreError =
    query.isFetchNextPageError && !query.isFetchingNextPage ? errorText(query.error) : undefined;
  return {
    phase: 'ready',
    items: auditItems(pages),
    continue: pages[pages.length - 1]?.metadata.continue || undefined,
    loadingMore: query.isFetchingNextPage,
    ...(moreError ? { moreError } : {}),
  };
}
