// WATCH_NAMESPACE: one process watching and managing a single namespace (a deployment with a namespaced Role,
// or tests side by side): its controller leaves other namespaces alone, reads outside it are relayed, and the
// live gateway and whoami say what it watches.
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Nginx, SubscribeAck } from '../libs/nginx-api/src/index.js';
import { TOKENS, nginxManifest, startControlPlane, type ControlPlane } from './support/control-plane.js';
import { kubectl, kubectlApply } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const WATCHED = uniqueName('watched');
const OTHER = uniqueName('other');
let cp: ControlPlane;

beforeAll(async () => {
  await kubectl('create', 'namespace', WATCHED);
  await kubectl('create', 'namespace', OTHER);
  cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: WATCHED });
});
afterAll(async () => {
  await cp?.stop();
  await kubectl('delete', 'namespace', WATCHED, OTHER, '--wait=false').catch(() => {});
});

const get = async (path: string) => cp.as('admin')(path);
const nginx = async (ns: string, name: string) =>
  (await (await get(`/apis/mycompany.com/v1/namespaces/${ns}/nginxes/${name}`)).json()) as Nginx;

describe('a control plane watching one namespace', () => {
  it('manages Nginxes there and leaves the others alone', async () => {
    // The other namespace's Nginx first: a controller watching it would see it before the watched one's.
    await kubectlApply(JSON.stringify(nginxManifest('web', 2)), OTHER);
    await kubectlApply(JSON.stringify(nginxManifest('web', 2)), WATCHED);
    await waitFor(
      '2 ready pods in the watched namespace',
      async () => (await nginx(WATCHED, 'web')).status?.readyReplicas === 2,
      {
        timeoutMs: 30_000,
      },
    );
    // And a later change in the watched namespace, acted on: by then the other Nginx would have had its turn.
    await kubectl('scale', 'ngx', 'web', '-n', WATCHED, '--replicas=3');
    await waitFor(
      'the later scale to 3 in the watched namespace',
      async () => {
        const watched = await nginx(WATCHED, 'web');
        return (
          watched.status?.readyReplicas === 3 &&
          watched.status.observedGeneration === watched.metadata.generation
        );
      },
      { timeoutMs: 30_000 },
    );
    expect((await nginx(OTHER, 'web')).status).toBeUndefined();
    expect((await kubectl('get', 'pods', '-n', OTHER, '-o', 'name')).trim()).toBe('');
  });

  it('relays reads outside it, and says what it watches', async () => {
    const other = await get(`/apis/mycompany.com/v1/namespaces/${OTHER}/nginxes/web?resourceVersion=0`);
    expect(other.status).toBe(200);
    expect(((await other.json()) as Nginx).metadata.managedFields).toBeDefined(); // relayed, not from the cache
    const watched = (await (
      await get(`/apis/mycompany.com/v1/namespaces/${WATCHED}/nginxes/web?resourceVersion=0`)
    ).json()) as Nginx;
    expect(watched.metadata.managedFields).toBeUndefined(); // from the cache
    expect((await get(`/controlplane/v1/namespaces/${OTHER}/nginxes/web/pods`)).status).toBe(400);
    expect(await (await get('/controlplane/v1/whoami')).json()).toMatchObject({
      namespaces: [WATCHED],
      watchNamespace: WATCHED,
    });
  });

  it('serves live updates for that namespace only', async () => {
    const socket = io(cp.url, {
      path: '/socket.io',
      auth: { token: TOKENS.viewer },
      transports: ['websocket'],
      reconnection: false,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        socket.once('connect', () => resolve());
        socket.once('connect_error', reject);
      });
      const ask = (request: unknown): Promise<SubscribeAck> =>
        socket.timeout(10_000).emitWithAck('subscribe', request);
      expect(await ask({ scope: 'namespace', namespace: WATCHED })).toMatchObject({ ok: true });
      expect(await ask({ scope: 'namespace', namespace: OTHER })).toMatchObject({ ok: false, code: 400 });
      expect(await ask({ scope: 'namespace' })).toMatchObject({ ok: false, code: 400 });
    } finally {
      socket.close();
    }
  });
});
