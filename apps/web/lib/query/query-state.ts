import { errorMessage } from '@/lib/api/api-client';

/** The three states a panel shows for one read. */
export type ReadPhase = 'loading' | 'ready' | 'error';

/** What `readPhase` needs of a query's result. */
export interface QueryView {
  /** A request is in flight (the first or a refetch). */
  isFetching: boolean;
  /** The latest request failed. */
  isError: boolean;
}

/**
 * The state of the latest request: `loading` while one is in flight (data from before may still be shown),
 * else `error` when it failed, else `ready`.
 */
export function readPhase(query: QueryView): ReadPhase {
  if (query.isFetching) return 'loading';
  return query.isError ? 'error' : 'ready';
}

/** A query's error in words, undefined when there is none. */
export function errorText(error: unknown): string | undefined {
  return error === null || error === undefined ? undefined : errorMessage(error);
}
