import { Inject, Logger, type OnModuleDestroy } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  SubscribeMessage,
  WebSocketGateway,
  WebSocketServer,
  type OnGatewayConnection,
  type OnGatewayDisconnect,
  type OnGatewayInit,
} from '@nestjs/websockets';
import { DeletedFinalStateUnknown } from '@ngx/kube-runtime';
import {
  LIVE_EVENTS,
  namespaceError,
  objectNameError,
  type ChangeType,
  type LiveChange,
  type Nginx,
  type SubscribeAck,
  type SubscriptionRequest,
} from '@ngx/nginx-api';
import type { V1Pod } from '@kubernetes/client-node';
import { Gauge, Registry } from 'prom-client';
import type { Server, Socket } from 'socket.io';
import { RequestBudget } from '../auth/request-budget.js';
import { mayAccessNamespace, type Caller } from '../auth/roles.js';
import { Authenticator } from '../auth/authenticator.js';
import { credentialOf, sessionIdOf } from '../auth/session/session-cookies.js';
import { SessionStore } from '../auth/session/session-store.js';
import { crossSiteRefusal } from '../auth/session/request-origin.js';
import { Authorization } from '../auth/authorization.js';
import { RefusalRecorder, type Refusal } from '../auth/refusal-recorder.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { liveParser } from './change-encoder.js';
import { corkFlushes } from './cork-writes.js';
import { LiveSession, PodChange } from './live-session.js';
import { onlyWatchedMessage } from '../config/watched-namespaces.js';

/** Packets engine.io may hold for one client before changes wait (coalesced) instead of queueing behind them. */
const MAX_BUFFERED_PACKETS = 256;
/** Subscriptions one connection may hold. */
const MAX_SUBSCRIPTIONS = 32;
/** Live connections one token may hold at once (a browser tab each). */
export const MAX_CONNECTIONS_PER_TOKEN = 20;

/** How often the connections a browser session authenticated are checked against the session storage. */
const SESSION_RECHECK_MS = 10_000;

type LiveSocket = Socket & { data: { caller?: Caller; session?: LiveSession; sessionId?: string } };

/**
 * Live updates over socket.io on the app's own origin (/socket.io), fed by the informers — nothing polls. The
 * handshake carries the same bearer token as the REST API (`auth: { token }`, or an Authorization header);
 * without a valid one the connection is refused. See libs/nginx-api/src/live.ts for the protocol.
 */
// WebSocket only, no long-polling: each polling request of one client may land on another API replica behind a
// load balancer without affinity, which polling cannot survive; a WebSocket is one connection to one replica.
@WebSocketGateway({
  path: '/socket.io',
  serveClient: false,
  cors: false,
  parser: liveParser,
  transports: ['websocket'],
})
export class LiveGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect, OnModuleDestroy {
  @WebSocketServer() private server!: Server;
  private readonly logger = new Logger('LiveGateway');
  private readonly sessions = new Set<LiveSession>();
  /** Open connections by token name. */
  private readonly connectionsByToken = new Map<string, number>();
  private readonly removeHandlers: (() => void)[] = [];
  private readonly connections: Gauge;
  private sessionRecheck: NodeJS.Timeout | undefined;

  constructor(
    @Inject(Authenticator) private readonly authenticator: Authenticator,
    @Inject(RequestBudget) private readonly budget: RequestBudget,
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
    @Inject(Registry) registry: Registry,
    @Inject(Authorization) private readonly authorization: Authorization,
    @Inject(RefusalRecorder) private readonly refusals: RefusalRecorder,
    @Inject(SessionStore) private readonly browserSessions: SessionStore,
  ) {
    this.connections = new Gauge({
      name: 'nginx_live_connections',
      help: 'socket.io clients connected to the live gateway.',
      registers: [registry],
    });
    // Whatever is derived from a change (a pod's view) is derived once here, not once per connected client.
    const fanOut =
      <T, U>(
        prepare: (object: T) => U,
        deliver: (session: LiveSession, type: ChangeType, change: U) => void,
      ) =>
      (type: ChangeType) =>
      (object: T | DeletedFinalStateUnknown<T>) => {
        if (this.sessions.size === 0) return;
        const change = prepare(object instanceof DeletedFinalStateUnknown ? object.object : object);
        for (const session of this.sessions) deliver(session, type, change);
      };
    const nginx = fanOut(
      (object: Nginx) => object,
      (s, type, object) => s.nginxChanged(type, object),
    );
    const pod = fanOut(
      (object: V1Pod) => new PodChange(object),
      (s, type, change) => s.podChanged(type, change),
    );
    this.removeHandlers.push(
      informers.nginxes.addEventHandler({
        add: nginx('ADDED'),
        update: (_, current) => nginx('MODIFIED')(current),
        delete: nginx('DELETED'),
      }),
      informers.pods.addEventHandler({
        add: pod('ADDED'),
        update: (_, current) => pod('MODIFIED')(current),
        delete: pod('DELETED'),
      }),
    );
  }

  /**
   * Handshakes spend from the same request budget as HTTP requests, before a token new to the app is verified
   * (so a flood of unknown tokens is bounded before it costs a verification): a known token's, or the address's.
   */
  afterInit(server: Server): void {
    server.use((socket, next) => {
      const handshake = handshakeCredentialOf(socket);
      const spender = this.authenticator.spender(handshake.credential);
      const answer = this.budget.take(spender ? { token: spender } : { address: socket.handshake.address });
      if (!answer.allowed) return next(new Error('too many requests'));
      void this.authenticate(handshake, socket).then((caller) => {
        // 'unavailable': the session storage is away; the client retries, and is not signed out for it.
        if (caller === 'unavailable') return next(new Error('unavailable'));
        if (!caller) return next(new Error('unauthorized'));
        if ((this.connectionsByToken.get(caller.name) ?? 0) >= MAX_CONNECTIONS_PER_TOKEN)
          return next(new Error('too many connections'));
        const sessionId = sessionIdOf(handshake.credential);
        Object.assign((socket as LiveSocket).data, { caller, ...(sessionId ? { sessionId } : {}) });
        next();
      });
    });
    this.sessionRecheck = setInterval(() => void this.endSignedOut(), SESSION_RECHECK_MS);
    this.sessionRecheck.unref();
  }

  /**
   * Closes the connections whose browser session has ended since their handshake (signed out on any replica, or
   * expired); their clients then find the session gone and go to sign in. Storage that cannot be reached ends
   * nothing.
   */
  private async endSignedOut(): Promise<void> {
    const sockets = [...this.server.sockets.sockets.values()] as LiveSocket[];
    const ids = [...new Set(sockets.flatMap((socket) => socket.data.sessionId ?? []))];
    if (ids.length === 0) return;
    let live: Set<string>;
    try {
      live = await this.browserSessions.stillLive(ids);
    } catch {
      return;
    }
    for (const socket of sockets)
      if (socket.data.sessionId && !live.has(socket.data.sessionId)) socket.disconnect(true);
  }

  handleConnection(socket: LiveSocket): void {
    corkFlushes(socket);
    const session = new LiveSession(
      this.informers,
      (changes: LiveChange[]) => socket.emit(LIVE_EVENTS.changes, changes),
      () => bufferedPackets(socket) < MAX_BUFFERED_PACKETS,
    );
    socket.data.session = session;
    this.sessions.add(session);
    this.connections.set(this.sessions.size);
    const name = socket.data.caller?.name;
    if (name) this.connectionsByToken.set(name, (this.connectionsByToken.get(name) ?? 0) + 1);
  }

  handleDisconnect(socket: LiveSocket): void {
    const session = socket.data.session;
    if (!session) return;
    session.close();
    this.sessions.delete(session);
    this.connections.set(this.sessions.size);
    const name = socket.data.caller?.name;
    const left = name ? (this.connectionsByToken.get(name) ?? 1) - 1 : 0;
    if (name && left > 0) this.connectionsByToken.set(name, left);
    else if (name) this.connectionsByToken.delete(name);
  }

  @SubscribeMessage(LIVE_EVENTS.subscribe)
  async subscribe(
    @ConnectedSocket() socket: LiveSocket,
    @MessageBody() body: unknown,
  ): Promise<SubscribeAck> {
    const { caller, session } = socket.data;
    if (!caller || !session) return refusal(401, 'Unauthorized', 'not signed in');
    const spent = this.budget.take({ token: caller.name });
    if (!spent.allowed)
      return refusal(429, 'TooManyRequests', `too many requests: retry in ${spent.retryAfterSeconds} s`);
    const request = parseRequest(body);
    if (typeof request === 'string') return refusal(400, 'BadRequest', request);
    const denied = await this.watchRefusal(socket, caller, request);
    if (denied) return denied;
    if (!this.sessions.has(session)) return refusal(401, 'Unauthorized', 'the connection closed');
    if (!this.informers.watches(request.namespace))
      return refusal(400, 'BadRequest', onlyWatchedMessage(this.informers.namespaces));
    if (!this.informers.hasSynced())
      return refusal(503, 'ServiceUnavailable', 'the caches are still syncing');
    if (session.size >= MAX_SUBSCRIPTIONS)
      return refusal(429, 'TooManyRequests', `at most ${MAX_SUBSCRIPTIONS} subscriptions per connection`);
    return { ok: true, ...session.subscribe(request) };
  }

  /**
   * Why `caller` may not watch what `request` asks for: with our roles, when it may not see the namespace; with the
   * cluster's RBAC, unless it may `watch` Nginxes there (that one, for an Nginx's subscription).
   */
  private async watchRefusal(
    socket: LiveSocket,
    caller: Caller,
    request: SubscriptionRequest,
  ): Promise<SubscribeAck | undefined> {
    const kubernetes = this.authorization.kubernetes;
    const record = (code: 403 | 503, reason: Refusal['reason'], message: string) =>
      this.record(socket, { code, reason, subject: caller.name, message });
    if (!kubernetes) {
      if (mayAccessNamespace(caller, request.namespace)) return undefined;
      const message = `${caller.name} may not watch ${request.namespace ?? 'all namespaces'}`;
      record(403, 'namespace', message);
      return refusal(403, 'Forbidden', message);
    }
    const denied = await kubernetes.refusal(caller, {
      verb: 'watch',
      ...(request.namespace !== undefined ? { namespace: request.namespace } : {}),
      ...(request.scope === 'nginx' ? { name: request.name } : {}),
    });
    if (!denied) return undefined;
    record(denied.code, denied.code === 403 ? 'rbac-denied' : 'rbac-unavailable', denied.message);
    return denied.code === 403
      ? refusal(403, 'Forbidden', denied.message)
      : refusal(503, 'ServiceUnavailable', denied.message);
  }

  @SubscribeMessage(LIVE_EVENTS.unsubscribe)
  unsubscribe(@ConnectedSocket() socket: LiveSocket, @MessageBody() body: unknown): { ok: boolean } {
    const { caller, session } = socket.data;
    if (!caller || !session || !this.budget.take({ token: caller.name }).allowed) return { ok: false };
    const id = (body as { subscription?: unknown } | null)?.subscription;
    return { ok: typeof id === 'string' && session.unsubscribe(id) };
  }

  /** Ends every live connection: the process is stopping, and their clients reconnect to another replica. */
  closeAll(): void {
    this.server?.disconnectSockets(true);
  }

  onModuleDestroy(): void {
    clearInterval(this.sessionRecheck);
    for (const remove of this.removeHandlers) remove();
    for (const session of this.sessions) session.close();
    this.sessions.clear();
    this.server?.disconnectSockets(true);
  }

  private async authenticate(
    handshake: HandshakeCredential,
    socket: Socket,
  ): Promise<Caller | 'unavailable' | undefined> {
    const { credential, crossSite } = handshake;
    if (crossSite) {
      this.logger.warn(`refused a live connection from ${socket.handshake.address}: ${crossSite}`);
      this.record(socket, { code: 403, reason: 'cross-site', message: `Forbidden: ${crossSite}` });
      return undefined;
    }
    const authentication = await this.authenticator.authenticate(credential);
    if ('caller' in authentication) return authentication.caller;
    if ('unavailable' in authentication) {
      this.logger.warn(
        `deferred a live connection from ${socket.handshake.address}: ${authentication.unavailable}`,
      );
      this.record(socket, {
        code: 503,
        reason: 'session-storage-unavailable',
        message: authentication.unavailable,
      });
      return 'unavailable';
    }
    const message = 'refused' in authentication ? authentication.refused : authentication.forbidden;
    this.logger.warn(`refused a live connection from ${socket.handshake.address}: ${message}`);
    if ('forbidden' in authentication)
      this.record(socket, {
        code: 403,
        reason: 'no-grant',
        subject: authentication.identity.username,
        message,
      });
    else this.record(socket, { code: 401, reason: unauthenticatedReason(credential), message });
    return undefined;
  }

  /** Records a refusal of this door in the audit. */
  private record(socket: Socket, refusal: Omit<Refusal, 'door' | 'address'>): void {
    this.refusals.record({ door: 'live', address: socket.handshake.address, ...refusal });
  }
}

/** The handshake's credential (as an Authorization value), or why the session cookie it carries is not taken. */
interface HandshakeCredential {
  credential: string | undefined;
  /** Set when the handshake rides on the session cookie from another site's page. */
  crossSite?: string;
}

/** Why a handshake's credential is not taken, as the refusals' category. */
function unauthenticatedReason(credential: string | undefined): Refusal['reason'] {
  if (credential === undefined) return 'no-credential';
  return sessionIdOf(credential) ? 'bad-session' : 'bad-token';
}

/**
 * The handshake's credential as an Authorization value: socket.io's `auth.token`, an `Authorization` header, or
 * the browser's session cookie — the last only from a page of this site (a WebSocket is not bound by CORS, so a
 * handshake another site's page starts must not ride on the cookie: then no credential, and why).
 */
function handshakeCredentialOf(socket: Socket): HandshakeCredential {
  const fromAuth = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
  if (typeof fromAuth === 'string') return { credential: `Bearer ${fromAuth}` };
  const credential = credentialOf(socket.handshake.headers);
  const crossSite = sessionIdOf(credential) ? crossSiteRefusal(socket.handshake.headers) : undefined;
  return crossSite ? { credential: undefined, crossSite } : { credential };
}

function refusal(code: number, reason: string, message: string): SubscribeAck {
  return { ok: false, code, reason, message };
}

/** The request, checked; or why it cannot be served. */
function parseRequest(body: unknown): SubscriptionRequest | string {
  if (typeof body !== 'object' || body === null) return 'a subscription must be an object';
  const { scope, namespace, name } = body as Record<string, unknown>;
  if (namespace !== undefined && (typeof namespace !== 'string' || namespaceError(namespace)))
    return `namespace ${JSON.stringify(namespace)} is not a namespace name`;
  if (scope === 'namespace') return { scope, namespace: namespace as string | undefined };
  if (scope !== 'nginx') return 'scope must be "namespace" or "nginx"';
  if (typeof namespace !== 'string') return 'an nginx subscription needs a namespace';
  if (typeof name !== 'string' || objectNameError(name))
    return `name ${JSON.stringify(name)} is not an object name`;
  return { scope, namespace, name };
}

/** Packets waiting in engine.io's write buffer for this client. */
function bufferedPackets(socket: Socket): number {
  return (socket.conn as unknown as { writeBuffer?: unknown[] }).writeBuffer?.length ?? 0;
}
