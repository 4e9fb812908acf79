'use client';

import type { LiveChange, Nginx } from '@ngx/nginx-api';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { LiveClient, LiveSubscription, SubscriptionRefusal } from '@/lib/live/live-client';
import { nginxKey } from '@/lib/nginx/nginx-view';

export interface LiveNginxes {
  phase: 'loading' | 'ready' | 'error';
  nginxes: Nginx[];
  error?: SubscriptionRefusal;
  retry: () => void;
}

/** Changes are applied in batches, at most one render per this many ms, so 1,000 busy rows stay smooth. */
const BATCH_MS = 50;

/**
 * Every Nginx of `namespace` (all namespaces when undefined), live: a `namespace` subscription's snapshot, then
 * its changes (ADDED and MODIFIED upsert, DELETED removes); a reconnect or resync replaces everything.
 */
export function useLiveNginxes(live: LiveClient | undefined, namespace: string | undefined): LiveNginxes {
  const [state, setState] = useState<{
    phase: LiveNginxes['phase'];
    items: Map<string, Nginx>;
    error?: SubscriptionRefusal;
  }>({ phase: 'loading', items: new Map() });
  const subscription = useRef<LiveSubscription | undefined>(undefined);

  useEffect(() => {
    if (!live) return;
    setState({ phase: 'loading', items: new Map() });
    let pending: LiveChange[] = [];
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      const changes = pending;
      pending = [];
      setState((current) => {
        const items = new Map(current.items);
        for (const change of changes) {
          if (change.kind !== 'nginx') continue;
          const key = nginxKey(change.object);
          if (change.type === 'DELETED') items.delete(key);
          else items.set(key, change.object);
        }
        return { phase: 'ready', items };
      });
    };
    subscription.current = live.subscribe(
      { scope: 'namespace', ...(namespace ? { namespace } : {}) },
      {
        onSnapshot: (snapshot) => {
          pending = [];
          clearTimeout(timer);
          timer = undefined;
          setState({ phase: 'ready', items: new Map(snapshot.nginxes.map((n) => [nginxKey(n), n])) });
        },
        onChange: (change) => {
          pending.push(change);
          timer ??= setTimeout(flush, BATCH_MS);
        },
        onError: (error) => setState((current) => ({ ...current, phase: 'error', error })),
      },
    );
    return () => {
      clearTimeout(timer);
      subscription.current?.unsubscribe();
      subscription.current = undefined;
    };
  }, [live, namespace]);

  const retry = useCallback(() => {
    setState((current) => ({ ...current, phase: 'loading', error: undefined }));
    subscription.current?.retry();
  }, []);
  const nginxes = useMemo(() => [...state.items.values()], [state.items]);
  return { phase: state.phase, nginxes, error: state.error, retry };
}
