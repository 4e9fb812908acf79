'use client';

import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';

/**
 * Refetches the query `queryKey` whenever `trigger` changes (not on mount: the query fetches then by itself),
 * `debounceMs` after the last change; a request still in flight is aborted for the new one. Pass what the live
 * connection says moved (a resourceVersion, a revision), so what is read follows what is watched.
 */
export function useRefetchOn(queryKey: QueryKey, trigger: string, debounceMs = 0): void {
  const client = useQueryClient();
  const seen = useRef(trigger);
  const key = JSON.stringify(queryKey);
  useEffect(() => {
    if (seen.current === trigger) return;
    seen.current = trigger;
    const timer = setTimeout(
      () => void client.invalidateQueries({ queryKey: JSON.parse(key) as QueryKey, exact: true }),
      debounceMs,
    );
    return () => clearTimeout(timer);
  }, [client, key, trigger, debounceMs]);
}
