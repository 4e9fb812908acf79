import type { Nginx } from './types.js';

/**
 * The live-update protocol between the API's socket.io gateway and the UI (socket.io on the app's own origin,
 * path /socket.io). The client authenticates in the handshake (`io({ auth: { token } })`; without a valid
 * token the connection is refused with a `connect_error` whose message is `unauthorized`), then subscribes.
 *
 * A subscription answers (through the emit's acknowledgement) with a snapshot carrying the resourceVersion of
 * the cache it was taken from, then the server emits `changes` events: each an array of LiveChange, for any of
 * the connection's subscriptions, in the order they happened. Changes are coalesced per object: the last state
 * wins, at most ~10 per second per object; what is ready for a client at once goes in one `changes` event (a
 * burst of pod changes costs one message, not one per pod). After a reconnect the client subscribes
 * again and gets a fresh snapshot, so nothing is missed or duplicated. When the server drops a subscription
 * (the client fell too far behind), it emits `resync`: subscribe again.
 */
export const LIVE_EVENTS = {
  subscribe: 'subscribe',
  unsubscribe: 'unsubscribe',
  changes: 'changes',
  resync: 'resync',
} as const;

/** Every Nginx of a namespace, or of all namespaces when `namespace` is omitted. */
export interface NamespaceSubscription {
  scope: 'namespace';
  namespace?: string;
}

/** One Nginx, with its pods. */
export interface NginxSubscription {
  scope: 'nginx';
  namespace: string;
  name: string;
}

export type SubscriptionRequest = NamespaceSubscription | NginxSubscription;

/** A pod as the UI shows it (the same shape as /controlplane/v1/…/pods items). */
export interface LivePod {
  name: string;
  uid: string;
  phase: string;
  ready: boolean;
  node: string | null;
  restarts: number;
  podIP: string | null;
  createdAt: string | null;
  /** Seconds since creation when the view was made. */
  ageSeconds: number | null;
  /** True once the pod is being deleted (deletionTimestamp set). */
  terminating: boolean;
  deletionTimestamp: string | null;
  resourceVersion: string;
  /** The pod template revision it runs (its `mycompany.com/revision` label); null for pods from before revisions. */
  revision: string | null;
}

export interface Snapshot {
  /** Identifies the subscription in later `change` events and in `unsubscribe`. */
  subscription: string;
  /** resourceVersion of the cache the snapshot was read from. */
  resourceVersion: string;
  nginxes: Nginx[];
  /** Only for an `nginx` subscription: its pods, oldest first. */
  pods?: LivePod[];
}

/** The acknowledgement of `subscribe`. */
export type SubscribeAck =
  ({ ok: true } & Snapshot) | { ok: false; code: number; reason: string; message: string };

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

export type LiveChange =
  | { subscription: string; kind: 'nginx'; type: ChangeType; object: Nginx }
  | { subscription: string; kind: 'pod'; type: ChangeType; object: LivePod };

export interface ResyncNotice {
  subscription: string;
  reason: string;
}
