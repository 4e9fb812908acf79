// The revisions of an Nginx and the rollback to one, end to end against the local cluster: the list (numbers,
// hashes, templates, the current one, and the write through our API that introduced each), the rollback as an
// editor (the old template back in the spec, recorded as verb rollback), and its refusals: a stale
// resourceVersion (409, nothing written), a viewer (403), an unknown revision (404), a malformed number (400).
// The app runs without its controller; the ControllerRevisions the controller keeps are created here when absent,
// as it would (so the test passes whether or not a controller elsewhere watches this namespace).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import {
  controllerRevisionName,
  podTemplateOf,
  revisionOf,
  type Nginx,
  type NginxSpec,
} from '../libs/nginx-api/src/index.js';
import { TOKEN_NAMES, startControlPlane, type ControlPlane, type TestRole } from './support/control-plane.js';
import { createNamespace } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let cp: ControlPlane;
let ns: string;

const NAME = 'web';
const CONFIG = "server { listen 80; location / { return 200 'two'; } }";
const json = { 'Content-Type': 'application/json' };

beforeAll(async () => {
  [ns, cp] = await Promise.all([createNamespace(client, 'revisions', cleanups), startControlPlane()]);
}, 90_000);

afterAll(async () => {
  await cp?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects and Status, read loosely
type Body = Record<string, any>;
const body = async (response: Response) => (await response.json()) as Body;
const as = (role: TestRole) => cp.as(role);
const nginxPath = () => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes/${NAME}`;
const revisionsPath = () => `/controlplane/v1/namespaces/${ns}/nginxes/${NAME}/revisions`;
const rollback = (role: TestRole, revision: string | number, request: Body = {}) =>
  as(role)(`${revisionsPath()}/${revision}/rollback`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify(request),
  });
const hashOf = (spec: NginxSpec) => revisionOf(podTemplateOf(spec));
const stored = () =>
  client.request<Nginx>({ path: `/apis/mycompany.com/v1/namespaces/${ns}/nginxes/${NAME}` });

/** The ControllerRevision the controller keeps for the Nginx's current template, made here unless it exists. */
function recordRevision(nginx: Nginx, revision: number): Promise<void> {
  return recordRevisionOf(NAME, nginx, revision);
}

/** recordRevision for the Nginx named `name`. */
async function recordRevisionOf(name: string, nginx: Nginx, revision: number): Promise<void> {
  const template = podTemplateOf(nginx.spec);
  const hash = revisionOf(template);
  try {
    await client.request({
      method: 'POST',
      path: `/apis/apps/v1/namespaces/${ns}/controllerrevisions`,
      body: {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name: controllerRevisionName(name, hash),
          labels: {
            'app.kubernetes.io/name': 'nginx',
            'app.kubernetes.io/managed-by': 'nginx-control-plane',
            'mycompany.com/nginx': name,
            'mycompany.com/revision': hash,
          },
          ownerReferences: [
            {
              apiVersion: 'mycompany.com/v1',
              kind: 'Nginx',
              name,
              uid: nginx.metadata.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
        revision,
        data: { template },
      },
    });
  } catch (error) {
    if (!(error instanceof KubeApiError && error.code === 409)) throw error; // the controller made it first
  }
}

/** A write through our API as the editor, answered 2xx; the Nginx it answered. */
async function write(method: 'POST' | 'PATCH', path: string, payload: Body): Promise<Nginx> {
  const response = await as('editor')(path, {
    method,
    headers: { 'Content-Type': method === 'POST' ? 'application/json' : 'application/merge-patch+json' },
    body: JSON.stringify(payload),
  });
  const answer = await body(response);
  expect(response.status, JSON.stringify(answer)).toBeLessThan(300);
  return answer as Nginx;
}

/** The revisions list once the change audit has the writes for every revision (it is written every 100 ms). */
function revisionsWithChanges(count: number, role: TestRole = 'viewer'): Promise<Body> {
  return waitFor(`${count} revisions of ${NAME}, each with the write that introduced it`, async () => {
    const response = await as(role)(revisionsPath());
    expect(response.status).toBe(200);
    const list = await body(response);
    return list.items.length === count && list.items.every((item: Body) => item.change !== null) && list;
  });
}

describe('revisions and rollback', () => {
  let v1: Nginx;
  let v2: Nginx;
  let scaled: Nginx;

  beforeAll(async () => {
    // replicas 0: no pods, whichever controller may watch the namespace.
    v1 = await write('POST', `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`, {
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: NAME },
      spec: { replicas: 0, image: 'nginx:1.27' },
    });
    await recordRevision(v1, 1);
    v2 = await write('PATCH', nginxPath(), { spec: { image: 'nginx:1.28', config: CONFIG } });
    await recordRevision(v2, 2);
    // Same template: no new revision, and not the write that introduced revision 2.
    scaled = await write('PATCH', nginxPath(), { spec: { replicas: 2 } });
  });

  it('lists the revisions newest first, with the current one and who introduced each', async () => {
    const list = await revisionsWithChanges(2);
    expect(list).toMatchObject({
      apiVersion: 'controlplane/v1',
      kind: 'RevisionList',
      nginx: { namespace: ns, name: NAME, uid: v1.metadata.uid, resourceVersion: expect.any(String) },
    });
    const [second, first] = list.items as [Body, Body];
    expect(second).toMatchObject({
      revision: 2,
      hash: hashOf(v2.spec),
      template: { image: 'nginx:1.28', port: 80, config: CONFIG },
      current: true,
      change: { actor: TOKEN_NAMES.editor, role: 'editor', verb: 'patch' },
    });
    expect(first).toMatchObject({
      revision: 1,
      hash: hashOf(v1.spec),
      template: { image: 'nginx:1.27', port: 80 },
      current: false,
      change: { actor: TOKEN_NAMES.editor, role: 'editor', verb: 'create' },
    });
    expect(first.template).not.toHaveProperty('config');
    expect(Date.parse(second.change.at)).toBeGreaterThanOrEqual(Date.parse(first.change.at));
    expect(Date.parse(first.created)).not.toBeNaN();
  });

  it('is described in the OpenAPI document', async () => {
    const document = await body(await fetch(`${cp.url}/openapi.json`));
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/revisions',
        '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/revisions/{revision}/rollback',
      ]),
    );
    expect(document.components.schemas.RevisionList).toBeDefined();
  });

  it('answers 404 for an Nginx that does not exist', async () => {
    const response = await as('viewer')(`/controlplane/v1/namespaces/${ns}/nginxes/nope/revisions`);
    expect(response.status).toBe(404);
    expect(await body(response)).toMatchObject({ kind: 'Status', reason: 'NotFound' });
  });

  it('refuses a malformed revision number (400), an unknown one (404) and a viewer (403), writing nothing', async () => {
    for (const revision of ['abc', '0', '-1']) {
      const response = await rollback('editor', revision);
      expect(response.status, revision).toBe(400);
      expect(await body(response)).toMatchObject({
        kind: 'Status',
        reason: 'BadRequest',
        details: { causes: [{ field: 'revision' }] },
      });
    }
    const unknown = await rollback('editor', 9);
    expect(unknown.status).toBe(404);
    expect(await body(unknown)).toMatchObject({
      kind: 'Status',
      reason: 'NotFound',
      details: { name: NAME },
    });
    const viewer = await rollback('viewer', 1);
    expect(viewer.status).toBe(403);
    expect(await body(viewer)).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect((await stored()).metadata.generation).toBe(scaled.metadata.generation);
  });

  it('answers 409 to a rollback on a stale resourceVersion, and writes nothing', async () => {
    const response = await rollback('editor', 1, { resourceVersion: v2.metadata.resourceVersion });
    expect(response.status).toBe(409);
    expect(await body(response)).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    const now = await stored();
    expect(now.metadata.generation).toBe(scaled.metadata.generation);
    expect(now.spec).toMatchObject({ image: 'nginx:1.28', config: CONFIG });
  });

  it('rolls back as the editor: the old template in the spec, the rest kept, audited as rollback', async () => {
    // As a client does: the resourceVersion just read (a controller elsewhere may have written status since).
    const { resourceVersion } = (await stored()).metadata;
    const response = await rollback('editor', 1, { resourceVersion });
    const answer = await body(response);
    expect(response.status, JSON.stringify(answer)).toBe(200);
    expect(answer).toMatchObject({ kind: 'Nginx', spec: { replicas: 2, image: 'nginx:1.27', port: 80 } });
    const now = await stored();
    expect(now.spec).toMatchObject({ replicas: 2, image: 'nginx:1.27' });
    expect(now.spec).not.toHaveProperty('config');
    expect(hashOf(now.spec)).toBe(hashOf(v1.spec));
    // The field manager is chosen as for every write through our API: the client's (here fetch's User-Agent).
    expect(now.metadata.managedFields?.some((entry) => entry.manager === 'node')).toBe(true);

    const audited = await waitFor('the rollbacks in the change audit', async () => {
      const list = await body(
        await as('viewer')(`/controlplane/v1/audit/changes?namespace=${ns}&name=${NAME}&verb=rollback`),
      );
      return list.items?.length >= 7 && (list.items as Body[]);
    });
    const success = audited.find((item) => item.code === 200)!;
    expect(success).toMatchObject({
      actor: TOKEN_NAMES.editor,
      role: 'editor',
      verb: 'rollback',
      namespace: ns,
      name: NAME,
      uid: v1.metadata.uid,
      resourceVersion: now.metadata.resourceVersion,
    });
    expect(success.specBefore).toMatchObject({ replicas: 2, image: 'nginx:1.28', config: CONFIG });
    expect(success.specAfter).toEqual(now.spec);
    // Each refusal is one record too, with its true outcome.
    expect(audited.map((item) => [item.actor, item.code]).sort()).toEqual(
      [
        [TOKEN_NAMES.viewer, 403],
        [TOKEN_NAMES.editor, 400],
        [TOKEN_NAMES.editor, 400],
        [TOKEN_NAMES.editor, 400],
        [TOKEN_NAMES.editor, 404],
        [TOKEN_NAMES.editor, 409],
        [TOKEN_NAMES.editor, 200],
      ].sort(),
    );

    // Revision 1 is current again, introduced last by the rollback (a controller would also renumber it).
    const list = await waitFor('revision 1 introduced by the rollback', async () => {
      const items = (await body(await as('viewer')(revisionsPath()))).items as Body[];
      const first = items.find((item) => item.hash === hashOf(v1.spec));
      return first?.change?.verb === 'rollback' && items;
    });
    expect(list.find((item) => item.hash === hashOf(v1.spec))).toMatchObject({
      current: true,
      change: { actor: TOKEN_NAMES.editor, verb: 'rollback' },
    });
    expect(list.find((item) => item.hash === hashOf(v2.spec))).toMatchObject({ current: false });
  });

  it('answers the Nginx unchanged, writing nothing, when it has that template already', async () => {
    const before = await stored();
    const number = ((await body(await as('viewer')(revisionsPath()))).items as Body[]).find(
      (item) => item.current,
    )!.revision;
    const response = await rollback('editor', number);
    expect(response.status).toBe(200);
    expect((await body(response)).spec).toEqual(before.spec);
    expect((await stored()).metadata.generation).toBe(before.metadata.generation);
  });
});

describe('rollback under an HTTPS Ingress', () => {
  const SECURE = 'secure';
  const securePath = () => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes/${SECURE}`;
  const rollbackTo = (revision: number) =>
    as('editor')(`/controlplane/v1/namespaces/${ns}/nginxes/${SECURE}/revisions/${revision}/rollback`, {
      method: 'POST',
      headers: json,
      body: '{}',
    });
  const read = () => client.request<Nginx>({ path: securePath() });

  it('refuses (409 naming spec.ingress.tls, nothing written) a revision without spec.tls, and rolls back once the Ingress is plain HTTP', async () => {
    // Revision 1 without TLS; revision 2 with spec.tls, and an Ingress terminating TLS with it.
    const plain = await write('POST', `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`, {
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: SECURE },
      spec: { replicas: 0, service: {}, ingress: { host: 'secure.example.com' } },
    });
    await recordRevisionOf(SECURE, plain, 1);
    const secure = await write('PATCH', securePath(), {
      spec: { tls: { secretName: 'secure-tls' }, ingress: { host: 'secure.example.com', tls: true } },
    });
    await recordRevisionOf(SECURE, secure, 2);

    const refused = await rollbackTo(1);
    const status = await body(refused);
    expect(refused.status, JSON.stringify(status)).toBe(409);
    expect(status).toMatchObject({
      kind: 'Status',
      code: 409,
      reason: 'Conflict',
      details: { name: SECURE, causes: [{ field: 'spec.ingress.tls' }] },
    });
    expect(status.message).toContain('revision 1 has no spec.tls');
    expect(status.message).toContain('set spec.ingress.tls to false first');
    const unchanged = await read();
    expect(unchanged.metadata.generation).toBe(secure.metadata.generation);
    expect(unchanged.spec.tls).toEqual({ secretName: 'secure-tls' });

    // The way out it names: the Ingress to plain HTTP, then the rollback goes through, keeping the Ingress.
    await write('PATCH', securePath(), { spec: { ingress: { tls: false } } });
    const rolledBack = await rollbackTo(1);
    expect(rolledBack.status, JSON.stringify(await rolledBack.clone().json())).toBe(200);
    const now = await read();
    expect(now.spec).not.toHaveProperty('tls');
    expect(now.spec.ingress).toEqual({ host: 'secure.example.com', tls: false });
    expect(hashOf(now.spec)).toBe(hashOf(plain.spec));
  });
});
