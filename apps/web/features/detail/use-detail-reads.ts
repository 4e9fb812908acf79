'use client';

import type { TimelineItem } from '@ngx/nginx-api';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback } from 'react';
import type { ApiClient, EventItem } from '@/lib/api/api-client';
import { queryKeys } from '@/lib/query/query-keys';
import { errorText } from '@/lib/query/query-state';
import { useRefetchOn } from '@/lib/query/use-refetch-on';

/** Refetch at most this often while the object or its pods keep changing. */
const DEBOUNCE_MS = 1_000;
/** How often the timeline is read again while nothing on the page moves. */
const TIMELINE_REFRESH_MS = 5_000;
/** Timeline entries read: the newest page. */
const TIMELINE_PAGE = 200;

/** A list a detail panel shows: the last one received (kept when a refetch fails), the latest error, a retry. */
export interface PanelRead<T> {
  /** Undefined until the first answer (and again after `retry`). */
  data: T | undefined;
  /** Why the latest request failed. */
  error: string | undefined;
  /** Forgets what is shown and asks again at once. */
  retry: () => void;
}

function usePanelRead<T>(
  queryKey: readonly unknown[],
  read: (signal: AbortSignal) => Promise<T>,
  revision: string,
  refetchInterval?: number,
): PanelRead<T> {
  const client = useQueryClient();
  const query = useQuery({
    queryKey,
    queryFn: ({ signal }) => read(signal),
    refetchInterval,
    refetchIntervalInBackground: refetchInterval !== undefined,
  });
  useRefetchOn(queryKey, revision, DEBOUNCE_MS);
  const key = JSON.stringify(queryKey);
  const retry = useCallback(
    () => void client.resetQueries({ queryKey: JSON.parse(key) as unknown[], exact: true }),
    [client, key],
  );
  return { data: query.data, error: errorText(query.error), retry };
}

/**
 * The Kubernetes Events about one Nginx: read on open, and again (debounced) whenever `revision` changes — the
 * object's resourceVersion and its pods' — since events follow those changes.
 */
export function useNginxEvents(
  api: ApiClient,
  namespace: string,
  name: string,
  revision: string,
): PanelRead<EventItem[]> {
  return usePanelRead(
    queryKeys.events(namespace, name),
    (signal) => api.events(namespace, name, signal),
    revision,
  );
}

/**
 * The newest page of an Nginx's causal timeline: read on open, again (debounced) whenever `revision` moves, and
 * every few seconds besides, since entries also come without the object or its pods moving (an audit event, a
 * change the informer records after its hold).
 */
export function useNginxTimeline(
  api: ApiClient,
  namespace: string,
  name: string,
  revision: string,
): PanelRead<TimelineItem[]> {
  return usePanelRead(
    queryKeys.timeline(namespace, name, TIMELINE_PAGE),
    (signal) => api.timeline(namespace, name, { limit: TIMELINE_PAGE }, signal).then((list) => list.items),
    revision,
    TIMELINE_REFRESH_MS,
  );
}
