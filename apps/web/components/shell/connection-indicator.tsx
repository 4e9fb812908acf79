'use client';

import { useSyncExternalStore } from 'react';
import type { ConnectionState, LiveClient } from '@/lib/live/live-client';

const LABELS: Record<ConnectionState, string> = {
  connecting: 'Connecting',
  live: 'Live',
  reconnecting: 'Reconnecting',
  offline: 'Offline',
};

const HINTS: Record<ConnectionState, string> = {
  connecting: 'Opening the live connection',
  live: 'Changes appear as they happen',
  reconnecting: 'The live connection dropped; reconnecting',
  offline: 'No live connection; retrying in the background',
};

const noop = () => () => {};

/** live / reconnecting / offline, from the session's live connection. */
export function ConnectionIndicator({ live }: { live: LiveClient | undefined }) {
  const state = useSyncExternalStore<ConnectionState>(
    live ? (listener) => live.onStateChange(listener) : noop,
    () => live?.connectionState ?? 'connecting',
    () => 'connecting',
  );
  return (
    <span
      className="connection"
      data-state={state}
      data-testid="connection-state"
      role="status"
      title={HINTS[state]}
    >
      <span className="connection-dot" aria-hidden="true" />
      <span>{LABELS[state]}</span>
    </span>
  );
}
