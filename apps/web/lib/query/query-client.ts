import { QueryClient, type DefaultOptions } from '@tanstack/react-query';

/**
 * How every read of the UI behaves, as the hand-written fetches it replaces did: a failed request is not tried
 * again by itself (the panel shows the error and its Retry), nothing is refetched because the window got focus or
 * the network came back (live changes and each panel's own refresh do that), every mount asks the server again,
 * and an answer nobody shows any more is dropped at once (so a list is never shown from an earlier visit, and a
 * request whose panel went away is aborted).
 */
export const QUERY_DEFAULTS = {
  queries: {
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
    staleTime: 0,
    gcTime: 0,
  },
} satisfies DefaultOptions;

/** The query client of one browser tab. */
export function makeQueryClient(): QueryClient {
  return new QueryClient({ defaultOptions: QUERY_DEFAULTS });
}
