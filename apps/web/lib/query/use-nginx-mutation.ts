'use client';

import {
  useMutation,
  useQueryClient,
  type QueryClient,
  type UseMutationOptions,
  type UseMutationResult,
} from '@tanstack/react-query';
import { queryKeys } from './query-keys';

/** The Nginx a write is about. */
export interface NginxRef {
  namespace: string;
  name: string;
}

/**
 * A write to one Nginx, through TanStack Query's `useMutation`: `isPending` while it runs (`options.onSuccess` and
 * `options.onError` included, so a follow-up read they await keeps it pending), its `error` until the next attempt
 * or `reset()`. Once it succeeds, every read cached about that Nginx (`queryKeys.nginx` and all under it: events,
 * timeline, revisions…) is refreshed; the object itself and the list come from the live connection, not from a
 * query. The refresh is not awaited, so the write's own state does not wait for those reads.
 *
 * `target` names the Nginx, or derives it from the variables (a create names it only when sent).
 */
export function useNginxMutation<TData, TVariables = void>(
  target: NginxRef | ((variables: TVariables) => NginxRef),
  options: UseMutationOptions<TData, Error, TVariables>,
): UseMutationResult<TData, Error, TVariables> {
  return useMutation(refreshingNginx(useQueryClient(), target, options));
}

/** `options`, whose success first refreshes (without waiting) every read `client` caches about the target Nginx. */
export function refreshingNginx<TData, TVariables>(
  client: QueryClient,
  target: NginxRef | ((variables: TVariables) => NginxRef),
  options: UseMutationOptions<TData, Error, TVariables>,
): UseMutationOptions<TData, Error, TVariables> {
  return {
    ...options,
    onSuccess: (data, variables, onMutateResult, context) => {
      const { namespace, name } = typeof target === 'function' ? target(variables) : target;
      void client.invalidateQueries({ queryKey: queryKeys.nginx(namespace, name) });
      return options.onSuccess?.(data, variables, onMutateResult, context);
    },
  };
}
