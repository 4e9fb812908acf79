import {
  LIVE_EVENTS,
  type LiveChange,
  type ResyncNotice,
  type Snapshot,
  type SubscribeAck,
  type SubscriptionRequest,
} from '@ngx/nginx-api';
import { io, type Socket } from 'socket.io-client';

/**
 * `connecting`: the first connection is being made; `live`: connected, changes flow; `reconnecting`: the
 * connection dropped and socket.io is retrying; `offline`: the browser is offline or retries keep failing.
 */
export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'offline';

/** A refused subscription (403 for a namespace the token may not watch, 503 while caches sync, …). */
export interface SubscriptionRefusal {
  code: number;
  reason: string;
  message: string;
}

export interface SubscriptionHandlers {
  /** A fresh snapshot: replace all state with it (after every connect and every resync). */
  onSnapshot: (snapshot: Snapshot) => void;
  onChange: (change: LiveChange) => void;
  onError?: (refusal: SubscriptionRefusal) => void;
}

export interface LiveSubscription {
  unsubscribe: () => void;
  /** Subscribes again for a fresh snapshot (a Retry button after a refusal). */
  retry: () => void;
}

interface Entry {
  request: SubscriptionRequest;
  handlers: SubscriptionHandlers;
  /** The server's id of the current subscription, once acknowledged. */
  id?: string;
  /** Bumped on every (re)subscribe so a late acknowledgement of an older attempt is ignored. */
  attempt: number;
  closed: boolean;
  retryTimer?: ReturnType<typeof setTimeout>;
}

/** After this many failed reconnection attempts in a row the indicator says offline (retries go on). */
const OFFLINE_AFTER_ATTEMPTS = 3;
const ACK_TIMEOUT_MS = 10_000;

/**
 * The live-update connection of one session (socket.io on this origin, see libs/nginx-api/src/live.ts):
 * authenticates with the token or the session cookie, re-subscribes every registered subscription after each (re)connect and on
 * `resync`, routes each change of a `changes` event to its subscription, and reports the connection state.
 */
export class LiveClient {
  private readonly socket: Socket;
  private readonly entries = new Set<Entry>();
  private readonly byId = new Map<string, Entry>();
  private readonly stateListeners = new Set<() => void>();
  private state: ConnectionState = 'connecting';
  private failedAttempts = 0;
  private everConnected = false;
  private closed = false;

  /** `token` null: the browser session's cookie authenticates the handshake (same origin). */
  constructor(
    token: string | null,
    private readonly onUnauthorized: () => void = () => {},
  ) {
    this.socket = io({
      path: '/socket.io',
      // The server takes WebSockets only: a WebSocket stays on one API replica behind a load balancer without
      // affinity, where long-polling's separate requests would not.
      transports: ['websocket'],
      auth: token ? { token } : {},
      reconnectionDelay: 500,
      reconnectionDelayMax: 5_000,
    });
    this.socket.on('connect', () => {
      this.everConnected = true;
      this.failedAttempts = 0;
      this.byId.clear();
      this.setState('live');
      for (const entry of this.entries) this.send(entry);
    });
    this.socket.on('disconnect', (reason) => {
      this.byId.clear();
      for (const entry of this.entries) entry.id = undefined;
      if (reason === 'io client disconnect') this.setState('offline');
      else this.setState(this.offlineNow() ? 'offline' : 'reconnecting');
      // A server-side disconnect is not retried by socket.io on its own.
      if (reason === 'io server disconnect' && !this.closed) this.socket.connect();
    });
    this.socket.on('connect_error', (error: Error) => {
      if (error.message === 'unauthorized') {
        this.onUnauthorized();
        return;
      }
      this.failedAttempts += 1;
      this.setState(this.offlineNow() ? 'offline' : this.everConnected ? 'reconnecting' : 'connecting');
    });
    this.socket.on(LIVE_EVENTS.changes, (changes: LiveChange[]) => {
      for (const change of changes) {
        const entry = this.byId.get(change.subscription);
        if (entry && !entry.closed) entry.handlers.onChange(change);
      }
    });
    this.socket.on(LIVE_EVENTS.resync, (notice: ResyncNotice) => {
      const entry = this.byId.get(notice.subscription);
      if (!entry) return;
      this.byId.delete(notice.subscription);
      entry.id = undefined;
      this.send(entry);
    });
    if (typeof window !== 'undefined') {
      window.addEventListener('online', this.onNetworkChange);
      window.addEventListener('offline', this.onNetworkChange);
    }
  }

  private readonly onNetworkChange = () => {
    if (this.socket.connected) return;
    this.setState(this.offlineNow() ? 'offline' : 'reconnecting');
  };

  private offlineNow(): boolean {
    return (
      (typeof navigator !== 'undefined' && navigator.onLine === false) ||
      this.failedAttempts >= OFFLINE_AFTER_ATTEMPTS
    );
  }

  private setState(state: ConnectionState): void {
    if (this.state === state) return;
    this.state = state;
    this.stateListeners.forEach((listener) => listener());
  }

  get connectionState(): ConnectionState {
    return this.state;
  }

  onStateChange(listener: () => void): () => void {
    this.stateListeners.add(listener);
    return () => this.stateListeners.delete(listener);
  }

  /** Subscribes (now if connected, else on connect) until `unsubscribe` is called. */
  subscribe(request: SubscriptionRequest, handlers: SubscriptionHandlers): LiveSubscription {
    const entry: Entry = { request, handlers, attempt: 0, closed: false };
    this.entries.add(entry);
    if (this.socket.connected) this.send(entry);
    return {
      unsubscribe: () => {
        entry.closed = true;
        clearTimeout(entry.retryTimer);
        this.entries.delete(entry);
        if (entry.id) {
          this.byId.delete(entry.id);
          if (this.socket.connected) this.socket.emit(LIVE_EVENTS.unsubscribe, { subscription: entry.id });
        }
      },
      retry: () => {
        if (entry.closed || !this.socket.connected) return;
        if (entry.id) {
          this.byId.delete(entry.id);
          this.socket.emit(LIVE_EVENTS.unsubscribe, { subscription: entry.id });
          entry.id = undefined;
        }
        this.send(entry);
      },
    };
  }

  private send(entry: Entry): void {
    clearTimeout(entry.retryTimer);
    const attempt = ++entry.attempt;
    const connection = this.socket.id;
    this.socket
      .timeout(ACK_TIMEOUT_MS)
      .emitWithAck(LIVE_EVENTS.subscribe, entry.request)
      .then((ack: SubscribeAck) => {
        const stale = entry.closed || attempt !== entry.attempt || connection !== this.socket.id;
        if (ack.ok && stale) {
          // Subscribed after all, but nobody wants it any more.
          this.socket.emit(LIVE_EVENTS.unsubscribe, { subscription: ack.subscription });
          return;
        }
        if (stale) return;
        if (!ack.ok) {
          entry.handlers.onError?.({ code: ack.code, reason: ack.reason, message: ack.message });
          // The caches are still syncing: try again shortly. Other refusals wait for a retry from the user.
          if (ack.code === 503 || ack.code === 429)
            entry.retryTimer = setTimeout(() => this.socket.connected && this.send(entry), 1_000);
          return;
        }
        entry.id = ack.subscription;
        this.byId.set(ack.subscription, entry);
        const { subscription, resourceVersion, nginxes, pods } = ack;
        entry.handlers.onSnapshot({ subscription, resourceVersion, nginxes, pods });
      })
      .catch(() => {
        // No acknowledgement in time: try again while connected (a reconnect re-subscribes anyway).
        if (entry.closed || attempt !== entry.attempt) return;
        entry.retryTimer = setTimeout(() => this.socket.connected && this.send(entry), 1_000);
      });
  }

  close(): void {
    this.closed = true;
    for (const entry of this.entries) clearTimeout(entry.retryTimer);
    this.entries.clear();
    this.byId.clear();
    if (typeof window !== 'undefined') {
      window.removeEventListener('online', this.onNetworkChange);
      window.removeEventListener('offline', this.onNetworkChange);
    }
    this.socket.removeAllListeners();
    this.socket.disconnect();
    this.setState('offline');
    this.stateListeners.clear();
  }
}
