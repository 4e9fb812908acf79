'use client';

import type { LivePod, Nginx } from '@ngx/nginx-api';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { LiveClient, LiveSubscription, SubscriptionRefusal } from '@/lib/live/live-client';

/** One line of the pod timeline: "12:01:03 web-x7k2p Pending → Running". */
export interface PodTransition {
  id: number;
  at: number;
  pod: string;
  change: string;
  tone: 'info' | 'success' | 'warning' | 'danger' | 'neutral';
}

export interface LiveNginx {
  phase: 'loading' | 'ready' | 'error';
  /** null when the Nginx does not exist (or was deleted). */
  nginx: Nginx | null;
  /** Oldest first. */
  pods: LivePod[];
  transitions: PodTransition[];
  error?: SubscriptionRefusal;
  retry: () => void;
}

const MAX_TRANSITIONS = 50;
let transitionIds = 0;

const byCreation = (a: LivePod, b: LivePod) =>
  (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.name.localeCompare(b.name);

/** What changed between two states of one pod, as timeline lines (newest last). */
export function podTransitions(before: LivePod | undefined, after: LivePod | undefined): PodTransition[] {
  const line = (pod: string, change: string, tone: PodTransition['tone']): PodTransition => ({
    id: ++transitionIds,
    at: Date.now(),
    pod,
    change,
    tone,
  });
  if (!before && after) return [line(after.name, `created (${after.phase})`, 'info')];
  if (before && !after) return [line(before.name, 'deleted', 'danger')];
  if (!before || !after) return [];
  const lines: PodTransition[] = [];
  if (before.phase !== after.phase)
    lines.push(
      line(
        after.name,
        `${before.phase} → ${after.phase}`,
        after.phase === 'Running' ? 'success' : after.phase === 'Failed' ? 'danger' : 'info',
      ),
    );
  if (!before.terminating && after.terminating) lines.push(line(after.name, 'terminating', 'warning'));
  if (before.ready !== after.ready)
    lines.push(line(after.name, after.ready ? 'ready' : 'not ready', after.ready ? 'success' : 'warning'));
  if (after.restarts > before.restarts)
    lines.push(line(after.name, `restarted (${after.restarts})`, 'warning'));
  return lines;
}

interface State {
  phase: LiveNginx['phase'];
  nginx: Nginx | null;
  pods: Map<string, LivePod>;
  transitions: PodTransition[];
  error?: SubscriptionRefusal;
}

const withTransitions = (current: PodTransition[], added: PodTransition[]) =>
  added.length ? [...current, ...added].slice(-MAX_TRANSITIONS) : current;

/**
 * One Nginx and its pods, live, through an `nginx` subscription. Pods are keyed by uid and updated in place; every
 * pod change is also written to a short timeline. A reconnect or resync replaces the state with the new snapshot
 * (the differences to what was shown become timeline lines, so nothing that happened meanwhile goes unseen).
 */
export function useLiveNginx(live: LiveClient | undefined, namespace: string, name: string): LiveNginx {
  const [state, setState] = useState<State>({
    phase: 'loading',
    nginx: null,
    pods: new Map(),
    transitions: [],
  });
  const subscription = useRef<LiveSubscription | undefined>(undefined);

  useEffect(() => {
    if (!live) return;
    let first = true;
    subscription.current = live.subscribe(
      { scope: 'nginx', namespace, name },
      {
        onSnapshot: (snapshot) => {
          const initial = first;
          first = false;
          setState((current) => {
            const pods = new Map((snapshot.pods ?? []).map((p) => [p.uid, p]));
            const added: PodTransition[] = [];
            if (!initial) {
              for (const [uid, pod] of current.pods) added.push(...podTransitions(pod, pods.get(uid)));
              for (const [uid, pod] of pods)
                if (!current.pods.has(uid)) added.push(...podTransitions(undefined, pod));
            }
            return {
              phase: 'ready',
              nginx: snapshot.nginxes[0] ?? null,
              pods,
              transitions: withTransitions(current.transitions, added),
            };
          });
        },
        onChange: (change) =>
          setState((current) => {
            if (change.kind === 'nginx')
              return { ...current, nginx: change.type === 'DELETED' ? null : change.object };
            const pods = new Map(current.pods);
            const before = pods.get(change.object.uid);
            const after = change.type === 'DELETED' ? undefined : change.object;
            if (after) pods.set(after.uid, after);
            else pods.delete(change.object.uid);
            return {
              ...current,
              pods,
              transitions: withTransitions(current.transitions, podTransitions(before, after)),
            };
          }),
        onError: (error) => setState((current) => ({ ...current, phase: 'error', error })),
      },
    );
    return () => {
      subscription.current?.unsubscribe();
      subscription.current = undefined;
    };
  }, [live, namespace, name]);

  const retry = useCallback(() => {
    setState((current) => ({ ...current, phase: 'loading', error: undefined }));
    subscription.current?.retry();
  }, []);
  const pods = useMemo(() => [...state.pods.values()].sort(byCreation), [state.pods]);
  return {
    phase: state.phase,
    nginx: state.nginx,
    pods,
    transitions: state.transitions,
    error: state.error,
    retry,
  };
}
