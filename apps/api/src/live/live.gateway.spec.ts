// The live gateway through a real socket.io server (Nest's own adapter, the gateway's own options and parser) and a
// real socket.io client, with fakes for what it reads: the caches, the authenticator, the budget, the refusals.
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { LiveChange, Nginx, SubscribeAck } from '@ngx/nginx-api';
import { Registry } from 'prom-client';
import { io, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Authenticator, type Authentication } from '../auth/authenticator.js';
import { Authorization } from '../auth/authorization.js';
import { RefusalRecorder, type Refusal } from '../auth/refusal-recorder.js';
import { RequestBudget } from '../auth/request-budget.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { SessionStore } from '../auth/session/session-store.js';
import { LiveGateway, MAX_CONNECTIONS_PER_TOKEN } from './live.gateway.js';

const TOKENS: Record<string, { name: string; namespaces?: string[] }> = {
  'token-ada': { name: 'ada' },
  'token-bob': { name: 'bob' },
  'token-cy': { name: 'cy' },
  'token-dee': { name: 'dee' },
  'token-eve': { name: 'eve' },
  'token-limited': { name: 'lim', namespaces: ['team-a'] },
};

type Handler = {
  add?: (object: unknown) => void;
  update?: (old: unknown, current: unknown) => void;
  delete?: (object: unknown) => void;
};

/** A SharedInformer as far as the gateway and its sessions read one: handlers, an indexed cache, its version. */
function fakeInformer<T extends { metadata: { namespace?: string; name?: string } }>() {
  const handlers: Handler[] = [];
  const objects = new Map<string, T>();
  const key = (o: T) => `${o.metadata.namespace}/${o.metadata.name}`;
  return {
    handlers,
    lastSyncResourceVersion: '42',
    hasSynced: () => true,
    addEventHandler(handler: Handler) {
      handlers.push(handler);
      return () => handlers.splice(handlers.indexOf(handler), 1);
    },
    cache: {
      list: () => [...objects.values()],
      get: (k: string) => objects.get(k),
      byIndex: (index: string, value: string) =>
        index === 'namespace' ? [...objects.values()].filter((o) => o.metadata.namespace === value) : [],
    },
    /** The object arrives in the cache: the handlers see it added. */
    add(object: T) {
      objects.set(key(object), object);
      for (const handler of handlers) handler.add?.(object);
    },
  };
}

const nginxes = fakeInformer<Nginx>();
const pods = fakeInformer<{ metadata: { namespace?: string; name?: string } }>();
const informers = {
  nginxes,
  pods,
  namespaces: undefined as string[] | undefined,
  synced: true,
  watches(namespace: string | undefined) {
    return this.namespaces === undefined || (namespace !== undefined && this.namespaces.includes(namespace));
  },
  hasSynced() {
    return this.synced;
  },
};

const credentialsSeen: (string | undefined)[] = [];
const authenticator = {
  spender: () => undefined,
  authenticate: (credential: string | undefined): Promise<Authentication> => {
    credentialsSeen.push(credential);
    const token = /^Bearer (.+)$/.exec(credential ?? '')?.[1];
    const entry = token ? TOKENS[token] : undefined;
    return Promise.resolve(
      entry
        ? {
            caller: {
              name: entry.name,
              role: 'viewer',
              ...(entry.namespaces ? { namespaces: entry.namespaces } : {}),
            },
          }
        : { refused: 'unknown token' },
    );
  },
};
const budget = { take: () => ({ allowed: true as const }) };
const refusals: Refusal[] = [];
const registry = new Registry();

let app: INestApplication;
let url: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  const module = await Test.createTestingModule({
    providers: [
      LiveGateway,
      { provide: Authenticator, useValue: authenticator },
      { provide: RequestBudget, useValue: budget },
      { provide: ClusterInformers, useValue: informers },
      { provide: Registry, useValue: registry },
      { provide: Authorization, useValue: { kubernetes: undefined } },
      { provide: RefusalRecorder, useValue: { record: (refusal: Refusal) => refusals.push(refusal) } },
      // No browser sessions here (bearer tokens only): nothing to recheck.
      { provide: SessionStore, useValue: { stillLive: async () => new Set() } },
    ],
  }).compile();
  app = module.createNestApplication({ logger: false });
  await app.listen(0, '127.0.0.1');
  url = await app.getUrl();
});
afterAll(async () => {
  await app?.close();
});
beforeEach(() => {
  informers.synced = true;
  informers.namespaces = undefined;
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.close();
  // Every connection of the test is gone on the server's side too before the next test counts them.
  await vi.waitFor(async () => expect(await liveConnections()).toBe(0), { timeout: 5000, interval: 10 });
});

/** The gateway's own gauge of open connections. */
async function liveConnections(): Promise<number> {
  const metric = await registry.getSingleMetric('nginx_live_connections')!.get();
  return metric.values[0]?.value ?? 0;
}

function connect(options: { token?: string; headers?: Record<string, string> } = {}): Socket {
  const socket = io(url, {
    path: '/socket.io',
    auth: options.token ? { token: options.token } : {},
    ...(options.headers ? { extraHeaders: options.headers } : {}),
    transports: ['websocket'],
    reconnection: false,
  });
  sockets.push(socket);
  return socket;
}

/** Resolves on `connect`; rejects with the server's refusal (connect_error) otherwise. */
function connected(socket: Socket): Promise<Socket> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

const open = (token = 'token-ada') => connected(connect({ token }));

function subscribe(socket: Socket, request: unknown): Promise<SubscribeAck> {
  return socket.timeout(5000).emitWithAck('subscribe', request);
}

function unsubscribe(socket: Socket, body: unknown): Promise<{ ok: boolean }> {
  return socket.timeout(5000).emitWithAck('unsubscribe', body);
}

function nginx(namespace: string, name: string): Nginx {
  return {
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { namespace, name, uid: `${namespace}-${name}`, resourceVersion: '1' },
    spec: {},
  } as unknown as Nginx;
}

/** The next `changes` batch the socket receives. */
function nextChanges(socket: Socket): Promise<LiveChange[]> {
  return new Promise((resolve) => socket.once('changes', resolve));
}

function subscriptionOf(ack: SubscribeAck): string {
  expect(ack).toMatchObject({ ok: true });
  return (ack as { subscription: string }).subscription;
}

describe('LiveGateway', () => {
  it('connects with the token in the handshake auth and subscribes with a snapshot', async () => {
    const socket = await open();
    const ack = await subscribe(socket, { scope: 'namespace', namespace: 'team-a' });
    expect(ack).toMatchObject({ ok: true, resourceVersion: '42', nginxes: [] });
    expect(credentialsSeen.at(-1)).toBe('Bearer token-ada');
  });

  it('takes the token from an Authorization header and refuses an unknown one, recorded', async () => {
    const socket = await connected(connect({ headers: { authorization: 'Bearer token-bob' } }));
    expect(credentialsSeen.at(-1)).toBe('Bearer token-bob');
    expect(await subscribe(socket, { scope: 'namespace' })).toMatchObject({ ok: true });

    await expect(connected(connect({ headers: { authorization: 'Bearer not-a-token' } }))).rejects.toThrow(
      'unauthorized',
    );
    expect(credentialsSeen.at(-1)).toBe('Bearer not-a-token');
    expect(refusals.at(-1)).toMatchObject({ door: 'live', code: 401, reason: 'bad-token' });
    await expect(connected(connect())).rejects.toThrow('unauthorized');
    expect(refusals.at(-1)).toMatchObject({ door: 'live', code: 401, reason: 'no-credential' });
  });

  it('unsubscribes: the id is forgotten once, and changes stop for it but not for the others', async () => {
    const socket = await open();
    const a = subscriptionOf(await subscribe(socket, { scope: 'namespace', namespace: 'team-a' }));
    const b = subscriptionOf(await subscribe(socket, { scope: 'namespace', namespace: 'team-b' }));

    expect(await unsubscribe(socket, { subscription: a })).toEqual({ ok: true });
    expect(await unsubscribe(socket, { subscription: a })).toEqual({ ok: false });
    expect(await unsubscribe(socket, { subscription: 'never-issued' })).toEqual({ ok: false });
    for (const bad of [null, 'text', 7, {}, { subscription: 7 }, { subscription: [b] }])
      expect(await unsubscribe(socket, bad)).toEqual({ ok: false });

    // A change in team-a (unsubscribed), then one in team-b: the batch that comes carries team-b's alone.
    const changes = nextChanges(socket);
    nginxes.add(nginx('team-a', 'gone'));
    nginxes.add(nginx('team-b', 'kept'));
    expect(await changes).toEqual([
      expect.objectContaining({
        subscription: b,
        kind: 'nginx',
        type: 'ADDED',
        object: nginx('team-b', 'kept'),
      }),
    ]);
  });

  it('holds at most 32 subscriptions a connection, and one more once one is let go', async () => {
    const socket = await open();
    const ids: string[] = [];
    for (let i = 0; i < 32; i++) ids.push(subscriptionOf(await subscribe(socket, { scope: 'namespace' })));
    expect(await subscribe(socket, { scope: 'namespace' })).toEqual({
      ok: false,
      code: 429,
      reason: 'TooManyRequests',
      message: 'at most 32 subscriptions per connection',
    });
    // The cap is the connection's: another connection of the same token subscribes.
    const other = await open();
    expect(await subscribe(other, { scope: 'namespace' })).toMatchObject({ ok: true });

    expect(await unsubscribe(socket, { subscription: ids[0] })).toEqual({ ok: true });
    expect(await subscribe(socket, { scope: 'namespace' })).toMatchObject({ ok: true });
  });

  it('answers 503 while the caches are syncing, and serves the same request once they have', async () => {
    const socket = await open();
    informers.synced = false;
    expect(await subscribe(socket, { scope: 'namespace', namespace: 'team-a' })).toEqual({
      ok: false,
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'the caches are still syncing',
    });
    informers.synced = true;
    expect(await subscribe(socket, { scope: 'namespace', namespace: 'team-a' })).toMatchObject({ ok: true });
  });

  it('refuses a namespace the control plane does not watch, and one the token may not see', async () => {
    informers.namespaces = ['team-a'];
    const socket = await open();
    expect(await subscribe(socket, { scope: 'namespace', namespace: 'team-b' })).toMatchObject({
      ok: false,
      code: 400,
      message: 'this control plane watches only the namespace team-a',
    });
    const limited = await open('token-limited');
    expect(await subscribe(limited, { scope: 'namespace', namespace: 'team-b' })).toMatchObject({
      ok: false,
      code: 403,
      reason: 'Forbidden',
    });
    expect(refusals.at(-1)).toMatchObject({ door: 'live', code: 403, reason: 'namespace', subject: 'lim' });
    expect(await subscribe(limited, { scope: 'namespace', namespace: 'team-a' })).toMatchObject({ ok: true });
  });

  it('answers 400 to names, namespaces and bodies of the wrong type, and the connection still serves', async () => {
    const socket = await open();
    const bad: [unknown, string][] = [
      [null, 'a subscription must be an object'],
      ['team-a', 'a subscription must be an object'],
      [42, 'a subscription must be an object'],
      [{ scope: 'nginx', namespace: 'team-a', name: 42 }, 'name 42 is not an object name'],
      [{ scope: 'nginx', namespace: 'team-a', name: ['web'] }, 'name ["web"] is not an object name'],
      [
        { scope: 'nginx', namespace: 'team-a', name: { toString: 'web' } },
        'name {"toString":"web"} is not an object name',
      ],
      [{ scope: 'nginx', namespace: 'team-a', name: null }, 'name null is not an object name'],
      [{ scope: 'nginx', namespace: 'team-a' }, 'name undefined is not an object name'],
      [
        { scope: 'nginx', namespace: 'team-a', name: 'Not_A_Name' },
        'name "Not_A_Name" is not an object name',
      ],
      [{ scope: 'namespace', namespace: 7 }, 'namespace 7 is not a namespace name'],
      [{ scope: 'namespace', namespace: ['team-a'] }, 'namespace ["team-a"] is not a namespace name'],
      [{ scope: 'nginx', name: 'web' }, 'an nginx subscription needs a namespace'],
      [{ scope: 'pods', namespace: 'team-a' }, 'scope must be "namespace" or "nginx"'],
      [{ scope: ['namespace'] }, 'scope must be "namespace" or "nginx"'],
    ];
    for (const [request, message] of bad)
      expect(await subscribe(socket, request), JSON.stringify(request)).toEqual({
        ok: false,
        code: 400,
        reason: 'BadRequest',
        message,
      });
    expect(socket.connected).toBe(true);
    expect(await subscribe(socket, { scope: 'nginx', namespace: 'team-a', name: 'web' })).toMatchObject({
      ok: true,
      nginxes: [],
      pods: [],
    });
  });

  it(`releases a token's connection slot on disconnect: ${MAX_CONNECTIONS_PER_TOKEN} at once, then one more after one closes`, async () => {
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS_PER_TOKEN }, () => open('token-cy')));
    await expect(open('token-cy')).rejects.toThrow('too many connections');
    // The limit is the token's: another token connects.
    await open('token-dee');

    held[0]!.close();
    await vi.waitFor(async () => expect(await liveConnections()).toBe(MAX_CONNECTIONS_PER_TOKEN), {
      timeout: 5000,
      interval: 10,
    });
    const again = await open('token-cy');
    expect(await subscribe(again, { scope: 'namespace' })).toMatchObject({ ok: true });
    await expect(open('token-cy')).rejects.toThrow('too many connections');
  });

  it('closes a connection that sends an oversized packet, releases its slot, and serves the next one', async () => {
    const socket = await open('token-eve');
    expect(await subscribe(socket, { scope: 'namespace' })).toMatchObject({ ok: true });
    const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    // engine.io's maxHttpBufferSize (1 MB by default) bounds one message.
    const acked = subscribe(socket, { scope: 'namespace', namespace: 'x'.repeat(1_100_000) });
    expect(await disconnected).toBe('transport close');
    await expect(acked).rejects.toThrow();
    await vi.waitFor(async () => expect(await liveConnections()).toBe(0), { timeout: 5000, interval: 10 });

    // A packet under the limit is read and answered (400: not a namespace name), on a new connection of the token.
    const next = await open('token-eve');
    expect(await subscribe(next, { scope: 'namespace', namespace: 'x'.repeat(900_000) })).toMatchObject({
      ok: false,
      code: 400,
    });
    expect(await subscribe(next, { scope: 'namespace' })).toMatchObject({ ok: true });
  });

  it('releases every slot of a token when its connections drop', async () => {
    const held = await Promise.all(
      Array.from({ length: MAX_CONNECTIONS_PER_TOKEN }, () => open('token-bob')),
    );
    for (const socket of held) socket.close();
    await vi.waitFor(async () => expect(await liveConnections()).toBe(0), { timeout: 5000, interval: 10 });
    await Promise.all(Array.from({ length: MAX_CONNECTIONS_PER_TOKEN }, () => open('token-bob')));
  });
});
