// The Kubernetes-style REST API of the control plane, end to end against the local cluster: discovery, every
// verb on nginxes and its subresources, cached and relayed reads, watches, Table output, roles, the change
// audit, the pods endpoint, rate limiting, body limits, the OpenAPI document and the security headers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl, kubectlApply } from './support/kubectl.js';
import {
  TOKEN_NAMES,
  TOKENS,
  nginxManifest,
  ownedPodManifest,
  startControlPlane,
  tlsFetch,
  type ControlPlane,
  type TestRole,
} from './support/control-plane.js';
import { uniqueName, waitFor } from './support/wait.js';

const NS = 'default';
const collection = `/apis/mycompany.com/v1/namespaces/${NS}/nginxes`;
const json = { 'Content-Type': 'application/json' };
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

let cp: ControlPlane;
const created: string[] = [];

beforeAll(async () => {
  cp = await startControlPlane();
});
afterAll(async () => {
  for (const name of created)
    await kubectl('delete', 'ngx', name, '-n', NS, '--ignore-not-found', '--wait=false');
  await cp?.stop();
});

const as = (role: TestRole | undefined) => cp.as(role);
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects of many shapes, read loosely
const body = async (response: Response) => (await response.json()) as Record<string, any>;

async function createNginx(replicas = 1, role: TestRole = 'editor') {
  const name = uniqueName('rest');
  created.push(name);
  const response = await as(role)(collection, {
    method: 'POST',
    headers: json,
    body: JSON.stringify(nginxManifest(name, replicas)),
  });
  expect(response.status).toBe(201);
  return { name, object: await body(response) };
}

describe('discovery', () => {
  it('lists only the Nginx group, with nginxes, status and scale (short name ngx)', async () => {
    const groups = await body(await as('viewer')('/apis'));
    expect(groups).toMatchObject({ kind: 'APIGroupList', groups: [{ name: 'mycompany.com' }] });
    const resources = await body(await as('viewer')('/apis/mycompany.com/v1'));
    expect(resources.kind).toBe('APIResourceList');
    expect(resources.resources.map((r: { name: string }) => r.name)).toEqual([
      'nginxes',
      'nginxes/status',
      'nginxes/scale',
    ]);
    expect(resources.resources[0]).toMatchObject({ shortNames: ['ngx'], kind: 'Nginx', namespaced: true });
    expect(await body(await as('viewer')('/api'))).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
    expect(await body(await as('viewer')('/api/v1'))).toMatchObject({
      kind: 'APIResourceList',
      resources: [],
    });
    expect((await body(await as('viewer')('/version'))).gitVersion).toMatch(/^v1\.\d+/);
    // The API server publishes a new CRD's OpenAPI a few seconds after installing it (on a fresh cluster, now).
    const openapi = await waitFor('the group in the OpenAPI index', async () => {
      const index = await body(await as('viewer')('/openapi/v3'));
      return Object.keys(index.paths).length > 0 && index;
    });
    expect(Object.keys(openapi.paths)).toEqual(['apis/mycompany.com/v1']);
  });
});

describe('authentication and roles', () => {
  it('answers 401 Status without a token or with a wrong one, on every kind of route', async () => {
    for (const path of [
      '/apis',
      collection,
      `${collection}/x`,
      '/controlplane/v1/audit/changes',
      '/version',
    ]) {
      for (const headers of [
        {},
        { Authorization: 'Bearer not-a-token-at-all' },
        { Authorization: 'Basic abc' },
      ] as Record<string, string>[]) {
        const response = await fetch(`${cp.url}${path}`, { headers });
        expect(response.status, path).toBe(401);
        expect(await body(response)).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
      }
    }
    expect((await fetch(`${cp.url}/healthz`)).status).toBe(200);
  });

  it('lets a viewer read but not write, and keeps status writes for admins', async () => {
    const { name } = await createNginx();
    expect((await as('viewer')(`${collection}/${name}`)).status).toBe(200);
    const refused = await as('viewer')(`${collection}/${name}`, {
      method: 'PATCH',
      headers: mergePatch,
      body: JSON.stringify({ spec: { replicas: 2 } }),
    });
    expect(refused.status).toBe(403);
    expect(await body(refused)).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    const status = { status: { message: 'hand-written' } };
    const editorStatus = await as('editor')(`${collection}/${name}/status`, {
      method: 'PATCH',
      headers: mergePatch,
      body: JSON.stringify(status),
    });
    expect(editorStatus.status).toBe(403);
    const adminStatus = await as('admin')(`${collection}/${name}/status`, {
      method: 'PATCH',
      headers: mergePatch,
      body: JSON.stringify(status),
    });
    expect(adminStatus.status).toBe(200);
    expect((await body(adminStatus)).status.message).toBe('hand-written');
  });

  it('never prints a token', () => {
    for (const token of Object.values(TOKENS)) expect(cp.output()).not.toContain(token);
  });
});

describe('nginxes', () => {
  it('creates from YAML (the seed manifest), reads it back from the API server and from the cache', async () => {
    const name = uniqueName('seed');
    created.push(name);
    const yaml = `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: ${name}\nspec:\n  replicas: 2\n`;
    const response = await as('editor')(collection, {
      method: 'POST',
      headers: { 'Content-Type': 'application/yaml' },
      body: yaml,
    });
    expect(response.status).toBe(201);
    const object = await body(response);
    expect(object.spec).toEqual({ replicas: 2, image: 'nginx:latest' });
    // With no fieldManager named, managedFields name the client's User-Agent up to its first `/`, as on
    // kube-apiserver (Node.js's fetch says "node"); the change record names the token.
    expect(object.metadata.managedFields[0].manager).toBe('node');

    const relayed = await body(await as('viewer')(`${collection}/${name}`));
    expect(relayed.metadata.uid).toBe(object.metadata.uid);
    const cached = await waitFor('the object in the cache', async () => {
      const answer = await as('viewer')(`${collection}/${name}?resourceVersion=0`);
      return answer.status === 200 && body(answer);
    });
    expect(cached).toMatchObject({ apiVersion: 'mycompany.com/v1', kind: 'Nginx', spec: { replicas: 2 } });
    expect(cached.metadata.managedFields).toBeUndefined(); // the cache keeps objects without them
  });

  it('lists across namespaces and in one, with label and field selectors, from the cache and relayed', async () => {
    const { name } = await createNginx();
    await kubectl('label', 'ngx', name, '-n', NS, 'team=web');
    for (const resourceVersion of ['', '&resourceVersion=0']) {
      const found = await waitFor(`the labelled object listed${resourceVersion}`, async () => {
        const list = await body(
          await as('viewer')(`/apis/mycompany.com/v1/nginxes?labelSelector=team%3Dweb${resourceVersion}`),
        );
        return list.items.some((n: { metadata: { name: string } }) => n.metadata.name === name) && list;
      });
      expect(found.kind).toBe('NginxList');
      expect(found.metadata.resourceVersion).toMatch(/^\d+$/);
      for (const item of found.items) expect(item.metadata.labels.team).toBe('web');
      const byName = await body(
        await as('viewer')(`${collection}?fieldSelector=metadata.name%3D${name}${resourceVersion}`),
      );
      expect(byName.items.map((n: { metadata: { name: string } }) => n.metadata.name)).toEqual([name]);
    }
    const page = await body(await as('viewer')(`/apis/mycompany.com/v1/nginxes?limit=1`));
    expect(page.items).toHaveLength(1);
    expect(page.metadata.continue).toBeTruthy();
    const bad = await as('viewer')(
      `${collection}?labelSelector=${encodeURIComponent('a in (b')}&resourceVersion=0`,
    );
    expect(bad.status).toBe(400);
  });

  it('relays a plain read of one Nginx and of the list as kube-apiserver answered it, in one write', async () => {
    const { name } = await createNginx();
    for (const path of [`${collection}/${name}`, collection]) {
      const fromApiServer = JSON.parse(await kubectl('get', '--raw', path));
      const answer = await as('viewer')(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-length'), path).toMatch(/^\d+$/); // read whole, sent at once
      expect(answer.headers.get('audit-id'), path).toBeTruthy(); // kube-apiserver's, passed on
      expect(answer.headers.get('x-powered-by'), path).toBeNull(); // answered ahead of Express
      const relayed = await body(answer);
      if (path === collection) {
        // A list's resourceVersion is the cluster's revision when it was read: any write anywhere between the two
        // reads (a Lease renewal) moves it on, never back.
        expect(Number(relayed.metadata.resourceVersion), path).toBeGreaterThanOrEqual(
          Number(fromApiServer.metadata.resourceVersion),
        );
        relayed.metadata.resourceVersion = fromApiServer.metadata.resourceVersion;
      }
      expect(relayed, path).toEqual(fromApiServer); // the controller is off: nothing changes the objects
    }
    const missing = await as('viewer')(`${collection}/${name}-gone`);
    expect(missing.status).toBe(404);
    expect(await body(missing)).toMatchObject({ kind: 'Status', reason: 'NotFound', code: 404 });
  });

  it('renders a Table with the CRD printer columns for kubectl get', async () => {
    const { name } = await createNginx(3);
    const table = await body(
      await as('viewer')(`${collection}/${name}`, {
        headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' },
      }),
    );
    expect(table.kind).toBe('Table');
    expect(table.columnDefinitions.map((c: { name: string }) => c.name)).toEqual([
      'Name',
      'Desired',
      'Ready',
      'Up-to-date',
      'Available',
      'Image',
      'Age',
    ]);
    expect(table.rows[0].cells.slice(0, 2)).toEqual([name, 3]);
  });

  it('replaces with optimistic concurrency, patches three ways, scales, and deletes with preconditions', async () => {
    const { name, object } = await createNginx(1);
    const path = `${collection}/${name}`;
    const put = await as('editor')(path, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ ...object, spec: { replicas: 2, image: 'nginx:1.27' } }),
    });
    expect(put.status).toBe(200);
    const stale = await as('editor')(path, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ ...object, spec: { replicas: 3 } }),
    });
    expect(stale.status).toBe(409);
    expect(await body(stale)).toMatchObject({ kind: 'Status', reason: 'Conflict' });

    const merged = await as('editor')(path, {
      method: 'PATCH',
      headers: mergePatch,
      body: '{"spec":{"replicas":4}}',
    });
    expect((await body(merged)).spec.replicas).toBe(4);
    const jsonPatched = await as('editor')(path, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json-patch+json' },
      body: JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: 5 }]),
    });
    expect((await body(jsonPatched)).spec.replicas).toBe(5);
    const applied = await as('editor')(`${path}?fieldManager=rest-test&force=true`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: ${name}\nspec:\n  replicas: 6\n`,
    });
    expect(applied.status).toBe(200);
    expect((await body(applied)).spec.replicas).toBe(6);

    const scale = await body(await as('viewer')(`${path}/scale`));
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 6 } });
    const scaled = await as('editor')(`${path}/scale`, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ ...scale, spec: { replicas: 2 } }),
    });
    expect(scaled.status).toBe(200);
    const patchedScale = await as('editor')(`${path}/scale`, {
      method: 'PATCH',
      headers: mergePatch,
      body: '{"spec":{"replicas":1}}',
    });
    expect((await body(patchedScale)).spec.replicas).toBe(1);
    expect((await body(await as('viewer')(path))).spec).toEqual({ replicas: 1, image: 'nginx:1.27' });

    const wrongUid = await as('editor')(path, {
      method: 'DELETE',
      headers: json,
      body: JSON.stringify({ preconditions: { uid: '00000000-0000-0000-0000-000000000000' } }),
    });
    expect(wrongUid.status).toBe(409);
    const deleted = await as('editor')(`${path}?propagationPolicy=Foreground`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    await waitFor('the object gone', async () => (await as('viewer')(path)).status === 404, {
      timeoutMs: 30_000,
    });
    const missing = await body(await as('viewer')(path));
    expect(missing).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound' });
  });

  it("passes the API server's refusals through: AlreadyExists, and 422 from the schema", async () => {
    const { name } = await createNginx();
    const again = await as('editor')(collection, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(nginxManifest(name)),
    });
    expect(again.status).toBe(409);
    expect(await body(again)).toMatchObject({ reason: 'AlreadyExists', details: { name, kind: 'nginxes' } });
    const tooMany = await as('editor')(`${collection}/${name}?fieldValidation=Strict`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json-patch+json' },
      body: JSON.stringify([{ op: 'add', path: '/spec/extra', value: 1 }]),
    });
    expect(tooMany.status).toBeGreaterThanOrEqual(400);
    expect(tooMany.status).toBeLessThan(500);
  });
});

describe('watch', () => {
  it('lowers a timeoutSeconds past 1800 and says so in a Warning header client-go can parse', async () => {
    const abort = new AbortController();
    const response = await as('viewer')(`${collection}?watch=true&timeoutSeconds=7200`, {
      signal: abort.signal,
    });
    expect(response.status).toBe(200);
    // RFC 7234 warn-text: quoted, `"` and `\` escaped (what client-go's ParseWarningHeaders reads).
    expect(response.headers.get('warning')).toBe(
      '299 - "timeoutSeconds=7200 lowered to 1800, the longest watch served here"',
    );
    abort.abort();
    await response.body?.cancel().catch(() => {});
  });

  it('streams ADDED, MODIFIED and DELETED for changes made with kubectl, bookmarks, and ends at timeoutSeconds', async () => {
    const list = await body(await as('viewer')(collection));
    const name = uniqueName('watched');
    const abort = new AbortController();
    // A streaming list (sendInitialEvents): the API server sends the current objects, then at once a BOOKMARK
    // marking the end of the initial events, so the relayed bookmark need not wait for the periodic one (~1 min).
    const response = await as('viewer')(
      `${collection}?watch=true&allowWatchBookmarks=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan` +
        `&timeoutSeconds=20&resourceVersion=${list.metadata.resourceVersion}`,
      { signal: abort.signal },
    );
    const refused = response.status === 200 ? '' : await response.text();
    expect(response.status, refused).toBe(200);
    const events: {
      type: string;
      object: { metadata: { name?: string; resourceVersion?: string; annotations?: Record<string, string> } };
    }[] = [];
    const reading = (async () => {
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
          events.push(JSON.parse(buffer.slice(0, newline)));
          buffer = buffer.slice(newline + 1);
        }
      }
    })().catch(() => {});

    const bookmark = await waitFor('the initial-events-end BOOKMARK', () =>
      events.find((e) => e.type === 'BOOKMARK'),
    );
    expect(bookmark.object.metadata.annotations?.['k8s.io/initial-events-end']).toBe('true');
    expect(Number(bookmark.object.metadata.resourceVersion)).toBeGreaterThanOrEqual(
      Number(list.metadata.resourceVersion),
    );
    // Every object the list had came first, as ADDED, before the bookmark.
    const initial = events.slice(0, events.indexOf(bookmark));
    expect(initial.every((e) => e.type === 'ADDED')).toBe(true);
    expect(initial.map((e) => e.object.metadata.name).sort()).toEqual(
      (list.items as { metadata: { name: string } }[]).map((n) => n.metadata.name).sort(),
    );

    const manifest = JSON.stringify(nginxManifest(name, 1));
    await kubectlApply(manifest, NS);
    await kubectl('patch', 'ngx', name, '-n', NS, '--type', 'merge', '-p', '{"spec":{"replicas":2}}');
    await kubectl('delete', 'ngx', name, '-n', NS, '--wait=false');
    const ours = () => events.filter((e) => e.object.metadata.name === name).map((e) => e.type);
    await waitFor('ADDED, MODIFIED and DELETED', () => ours().includes('DELETED'), { timeoutMs: 20_000 });
    expect(ours()[0]).toBe('ADDED');
    expect(ours()).toContain('MODIFIED');
    abort.abort();
    await reading;

    // Ends by itself: the body completes without an abort (this test's timeout is the bound, not a wall clock).
    const short = await as('viewer')(`${collection}?watch=true&timeoutSeconds=1`);
    expect(short.status).toBe(200);
    await expect(short.text()).resolves.toBeTypeOf('string');
  }, 60_000);
});

describe('the change audit', () => {
  it('records every write with the token name, the spec before and after, and the answer', async () => {
    const { name } = await createNginx(1);
    await as('editor')(`${collection}/${name}`, {
      method: 'PATCH',
      headers: mergePatch,
      body: '{"spec":{"replicas":3}}',
    });
    await as('viewer')(`${collection}/${name}`, { method: 'DELETE' }); // refused: 403
    const changes = await waitFor('three change records', async () => {
      const list = await body(await as('viewer')(`/controlplane/v1/audit/changes?name=${name}`));
      return list.items?.length >= 3 && list.items;
    });
    const [refused, patch, create] = changes;
    expect(create).toMatchObject({ actor: TOKEN_NAMES.editor, verb: 'create', code: 201, specBefore: null });
    expect(create.specAfter).toEqual({ replicas: 1, image: 'nginx:latest' });
    expect(patch).toMatchObject({ actor: TOKEN_NAMES.editor, verb: 'patch', code: 200 });
    expect(patch.specBefore).toEqual({ replicas: 1, image: 'nginx:latest' });
    expect(patch.specAfter).toEqual({ replicas: 3, image: 'nginx:latest' });
    expect(refused).toMatchObject({
      actor: TOKEN_NAMES.viewer,
      verb: 'delete',
      code: 403,
      reason: 'Forbidden',
    });
    expect(JSON.stringify(changes)).not.toContain(TOKENS.editor);
  });
});

describe("the control plane's own endpoints", () => {
  it('lists the pods of an Nginx from the cache (its controller runs in other test files: pods are made by hand)', async () => {
    const { name, object } = await createNginx(0);
    const pod = `${name}-by-hand`;
    await kubectlApply(JSON.stringify(ownedPodManifest(pod, { name, uid: object.metadata.uid })), NS);
    const pods = await waitFor('the pod Running in the pods endpoint', async () => {
      const list = await body(await as('viewer')(`/controlplane/v1/namespaces/${NS}/nginxes/${name}/pods`));
      return list.items?.[0]?.phase === 'Running' && list;
    });
    expect(pods.items).toHaveLength(1);
    expect(pods.items[0]).toMatchObject({ name: pod, ready: true, terminating: false, restarts: 0 });
    expect(pods.items[0].node).toMatch(/^kwok-node-/);
    expect(pods.items[0].podIP).toBeTruthy();
    const missing = await as('viewer')(`/controlplane/v1/namespaces/${NS}/nginxes/no-such-nginx/pods`);
    expect(missing.status).toBe(404);
    for (const bad of ['Upper/nginxes/x', 'a%2Fb/nginxes/x', `${NS}/nginxes/bad_name`, `${NS}/nginxes/%00`]) {
      const response = await as('viewer')(`/controlplane/v1/namespaces/${bad}/pods`);
      expect(response.status, bad).toBe(400);
      expect(await body(response)).toMatchObject({ kind: 'Status', code: 400 });
    }
    expect((await as(undefined)(`/controlplane/v1/namespaces/${NS}/nginxes/${name}/pods`)).status).toBe(401);
  });

  it('serves its OpenAPI document and a docs page without a token', async () => {
    const document = await body(await fetch(`${cp.url}/openapi.json`));
    expect(document.openapi).toMatch(/^3\./);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/apis/mycompany.com/v1/namespaces/{namespace}/nginxes/{name}',
        '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/pods',
        '/controlplane/v1/audit/changes',
        '/controlplane/v1/audit/reconciles',
      ]),
    );
    const docs = await fetch(`${cp.url}/openapi/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('answers TLS on the same port, for kubectl', async () => {
    const response = await tlsFetch(`${cp.httpsUrl}/apis`, {
      headers: { Authorization: `Bearer ${TOKENS.viewer}` },
    });
    expect(response.status).toBe(200);
  });

  it('sends nosniff and no-referrer on every answer, and HSTS over TLS only', async () => {
    const plain = [
      await as('viewer')(collection),
      await as(undefined)(collection), // a 401 Status
      await fetch(`${cp.url}/healthz`),
      await fetch(`${cp.url}/socket.io/?EIO=4&transport=polling`), // answered by engine.io, not Express
    ];
    for (const response of plain) {
      expect(response.headers.get('x-content-type-options'), response.url).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), response.url).toBe('no-referrer');
      expect(response.headers.get('strict-transport-security'), response.url).toBeNull();
      await response.arrayBuffer();
    }
    expect(plain[0]!.headers.get('content-type')).toMatch(/^application\/json/);

    const auth = { headers: { Authorization: `Bearer ${TOKENS.viewer}` } };
    for (const path of [collection, '/healthz']) {
      const response = await tlsFetch(`${cp.httpsUrl}${path}`, auth);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('strict-transport-security'), path).toMatch(/^max-age=\d+$/);
      expect(response.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(response.headers.get('referrer-policy'), path).toBe('no-referrer');
      await response.arrayBuffer();
    }
  });
});

describe('limits', () => {
  it('refuses bodies over 1 MiB with 413 and keeps serving', async () => {
    const huge = JSON.stringify({
      ...nginxManifest('huge'),
      metadata: { name: 'huge', annotations: { a: 'x'.repeat(1_100_000) } },
    });
    const response = await as('editor')(collection, { method: 'POST', headers: json, body: huge });
    expect(response.status).toBe(413);
    expect(await body(response)).toMatchObject({ kind: 'Status', code: 413 });
    expect((await as('viewer')('/apis')).status).toBe(200);
  });

  it('answers no cross-origin request unless CORS_ORIGINS allows the origin', async () => {
    const preflight = (url: string) =>
      fetch(`${url}/apis`, {
        method: 'OPTIONS',
        headers: { Origin: 'http://ui.example', 'Access-Control-Request-Method': 'GET' },
      });
    expect((await preflight(cp.url)).headers.get('access-control-allow-origin')).toBeNull();
    const open = await startControlPlane({ CORS_ORIGINS: 'http://ui.example' });
    try {
      const response = await preflight(open.url);
      expect(response.status).toBeLessThan(300);
      expect(response.headers.get('access-control-allow-origin')).toBe('http://ui.example');
      const other = await fetch(`${open.url}/apis`, { headers: { Origin: 'http://evil.example' } });
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      // A plain relayed read is answered ahead of Express, but not one that names an origin.
      const read = await open.as('viewer')(collection, { headers: { Origin: 'http://ui.example' } });
      expect(read.status).toBe(200);
      expect(read.headers.get('access-control-allow-origin')).toBe('http://ui.example');
      await read.arrayBuffer();
    } finally {
      await open.stop();
    }
  });

  it('limits each token separately with 429 and Retry-After', async () => {
    const limited = await startControlPlane({ RATE_LIMIT_RPS: '0.5' }); // 5 requests per 10 s window
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 8; i++) {
        const response = await limited.as('viewer')('/apis');
        statuses.push(response.status);
        if (response.status === 429) {
          retryAfter = response.headers.get('retry-after');
          expect(await body(response)).toMatchObject({
            kind: 'Status',
            code: 429,
            reason: 'TooManyRequests',
          });
        }
      }
      expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200]);
      expect(statuses.slice(5)).toEqual([429, 429, 429]);
      expect(Number(retryAfter)).toBeGreaterThan(0);
      expect((await limited.as('editor')('/apis')).status).toBe(200); // another token is not affected
      expect((await fetch(`${limited.url}/healthz`)).status).toBe(200); // probes are not limited
    } finally {
      await limited.stop();
    }
  });
});
