// The socket.io live gateway against the local cluster: handshake authentication, snapshots with their
// resourceVersion, changes made with kubectl arriving without polling, per-object coalescing, namespace limits of
// tokens, bad subscriptions, and a fresh snapshot after a reconnect.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveChange, SubscribeAck } from '../libs/nginx-api/src/index.js';
import {
  TOKENS,
  nginxManifest,
  ownedPodManifest,
  startControlPlane,
  type ControlPlane,
} from './support/control-plane.js';
import { kubectl, kubectlApply } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const NS = uniqueName('live');
const LIMITED_TOKEN = 'limited-token-0123456789abcdef';
let cp: ControlPlane;
const sockets: Socket[] = [];

beforeAll(async () => {
  await kubectl('create', 'namespace', NS);
  const tokens = join(mkdtempSync(join(tmpdir(), 'ngx-live-')), 'tokens.yaml');
  writeFileSync(
    tokens,
    `tokens:\n  - { name: lee-limited, role: viewer, token: ${LIMITED_TOKEN}, namespaces: [${NS}] }\n`,
  );
  cp = await startControlPlane({ AUTH_TOKENS_FILE: tokens });
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await cp?.stop();
  await kubectl('delete', 'namespace', NS, '--wait=false').catch(() => {});
});

function connect(token: string | undefined): Socket {
  const socket = io(cp.url, {
    path: '/socket.io',
    auth: token ? { token } : {},
    transports: ['websocket'],
    reconnection: false,
  });
  sockets.push(socket);
  return socket;
}

function connected(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
}

function subscribe(socket: Socket, request: unknown): Promise<SubscribeAck> {
  return socket.timeout(10_000).emitWithAck('subscribe', request);
}

function changesOf(socket: Socket): LiveChange[] {
  const changes: LiveChange[] = [];
  socket.on('changes', (batch: LiveChange[]) => changes.push(...batch));
  return changes;
}

describe('the live gateway', () => {
  it('refuses a connection without a valid token', async () => {
    for (const token of [undefined, 'wrong-token-0123456789']) {
      const error = await connected(connect(token)).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(error?.message).toBe('unauthorized');
    }
  });

  it('sends a snapshot, then the changes made with kubectl, to a viewer watching a namespace', async () => {
    const socket = connect(TOKENS.viewer);
    await connected(socket);
    const changes = changesOf(socket);
    const existing = uniqueName('before');
    await kubectlApply(JSON.stringify(nginxManifest(existing, 0)), NS);
    await waitFor('the cache to hold it', async () => {
      const ack = await subscribe(socket, { scope: 'namespace', namespace: NS });
      return ack.ok && ack.nginxes.some((n) => n.metadata.name === existing) && ack;
    });
    const ack = await subscribe(socket, { scope: 'namespace', namespace: NS });
    if (!ack.ok) throw new Error(ack.message);
    expect(ack.resourceVersion).toMatch(/^\d+$/);
    expect(ack.nginxes.map((n) => n.metadata.name)).toEqual([existing]);

    const name = uniqueName('after');
    await kubectlApply(JSON.stringify(nginxManifest(name, 0)), NS);
    await kubectl('scale', 'ngx', name, '-n', NS, '--replicas=3');
    await kubectl('delete', 'ngx', name, '-n', NS, '--wait=false');
    const ours = () =>
      changes.filter(
        (c) => c.subscription === ack.subscription && c.kind === 'nginx' && c.object.metadata.name === name,
      );
    await waitFor('ADDED, then DELETED', () => ours().some((c) => c.type === 'DELETED'));
    expect(ours()[0]!.type).toBe('ADDED');
    expect(ours().every((c) => c.kind === 'nginx')).toBe(true);
  });

  it('streams the pods of one Nginx, coalescing bursts per pod (last state wins, about 10 a second)', async () => {
    const name = uniqueName('pods');
    await kubectlApply(JSON.stringify(nginxManifest(name, 0)), NS);
    const uid = (await kubectl('get', 'ngx', name, '-n', NS, '-o', 'jsonpath={.metadata.uid}')).trim();
    const socket = connect(TOKENS.viewer);
    await connected(socket);
    const changes = changesOf(socket);
    const ack = await waitFor('a snapshot with the Nginx', async () => {
      const answer = await subscribe(socket, { scope: 'nginx', namespace: NS, name });
      return answer.ok && answer.nginxes.length === 1 && answer;
    });
    expect(ack.pods).toEqual([]);

    const pod = `${name}-hand`;
    await kubectlApply(JSON.stringify(ownedPodManifest(pod, { name, uid })), NS);
    const podChanges = () => changes.filter((c) => c.kind === 'pod' && c.object.name === pod);
    await waitFor(
      'the pod Running',
      () => podChanges().some((c) => c.kind === 'pod' && c.object.phase === 'Running'),
      {
        timeoutMs: 60_000,
      },
    );

    // A burst of 30 updates to the pod in about a second arrives coalesced, ending at the last state.
    const before = podChanges().length;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        kubectl('annotate', 'pod', pod, '-n', NS, '--overwrite', `burst=${i}`).catch(() => undefined),
      ),
    );
    await kubectl('annotate', 'pod', pod, '-n', NS, '--overwrite', 'burst=last');
    const elapsed = Date.now() - started;
    await waitFor('the last state', async () => {
      const rv = (
        await kubectl('get', 'pod', pod, '-n', NS, '-o', 'jsonpath={.metadata.resourceVersion}')
      ).trim();
      const last = podChanges().at(-1);
      return last?.kind === 'pod' && last.object.resourceVersion === rv;
    });
    const received = podChanges().length - before;
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThanOrEqual(Math.ceil((elapsed + 1000) / 100) + 1);
    console.log(`31 pod updates in ${elapsed} ms reached the client as ${received} changes`);

    await kubectl('delete', 'pod', pod, '-n', NS, '--grace-period=0', '--force');
    await waitFor('the pod DELETED', () => podChanges().some((c) => c.type === 'DELETED'));
  }, 120_000);

  it('keeps limited tokens to their namespaces and answers bad subscriptions with a reason', async () => {
    const socket = connect(LIMITED_TOKEN);
    await connected(socket);
    expect((await subscribe(socket, { scope: 'namespace', namespace: NS })).ok).toBe(true);
    expect(await subscribe(socket, { scope: 'namespace', namespace: 'default' })).toMatchObject({
      ok: false,
      code: 403,
    });
    expect(await subscribe(socket, { scope: 'namespace' })).toMatchObject({ ok: false, code: 403 });
    for (const bad of [
      null,
      'x',
      { scope: 'cluster' },
      { scope: 'nginx', namespace: NS },
      { scope: 'namespace', namespace: 'Bad_NS' },
    ])
      expect(await subscribe(socket, bad)).toMatchObject({ ok: false, code: 400 });
    // The REST API keeps the same limits.
    const rest = (path: string) =>
      fetch(`${cp.url}${path}`, { headers: { Authorization: `Bearer ${LIMITED_TOKEN}` } });
    expect((await rest(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes`)).status).toBe(200);
    expect((await rest('/apis/mycompany.com/v1/namespaces/default/nginxes')).status).toBe(403);
    expect((await rest('/apis/mycompany.com/v1/nginxes')).status).toBe(403);
    expect((await rest(`/controlplane/v1/audit/changes?namespace=${NS}`)).status).toBe(200);
    expect((await rest('/controlplane/v1/audit/changes')).status).toBe(403);
    expect(socket.connected).toBe(true);
  });

  it('gives a fresh snapshot after a reconnect', async () => {
    const socket = connect(TOKENS.viewer);
    await connected(socket);
    const first = await subscribe(socket, { scope: 'namespace', namespace: NS });
    socket.disconnect();
    const name = uniqueName('while-away');
    await kubectlApply(JSON.stringify(nginxManifest(name, 0)), NS);
    socket.connect();
    await connected(socket);
    const again = await waitFor('a snapshot with the object made while away', async () => {
      const ack = await subscribe(socket, { scope: 'namespace', namespace: NS });
      return ack.ok && ack.nginxes.some((n) => n.metadata.name === name) && ack;
    });
    expect(first.ok && again.subscription !== first.subscription).toBe(true);
    expect(Number(again.resourceVersion)).toBeGreaterThan(Number(first.ok ? first.resourceVersion : 0));
  });
});
