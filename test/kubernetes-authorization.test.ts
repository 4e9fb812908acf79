// Runs alone: restarts kube-apiserver with an audit log, to read who each write went as.
// AUTHORIZATION=kubernetes (issue 32): what a caller may do is what the local cluster's RBAC allows its user and
// groups, asked with real SubjectAccessReviews, and its writes reach kube-apiserver impersonating it. The caller
// is a ServiceAccount "alice" whose token is minted for our audience (a TokenReview names her); a RoleBinding lets
// her read and patch Nginxes in one namespace only.
import { join } from 'node:path';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import type { SubscribeAck } from '@ngx/nginx-api';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import {
  controllerRevisionName,
  podTemplateOf,
  revisionOf,
  type Nginx,
} from '../libs/nginx-api/src/index.js';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditOffset,
  readAuditEvents,
  withAuditLog,
  type AuditEvent,
} from './support/apiserver-audit-log.js';
import { requestCounts } from './support/apiserver-metrics.js';
import { CA_FILE, startControlPlane, type ControlPlane } from './support/control-plane.js';
import { applyNginxCrd, kubectl, runKubectl } from './support/kubectl.js';
import { CLUSTER_DIR } from './support/paths.js';
import { runtimeClient } from './support/runtime.js';
import { canI } from './support/service-account.js';
import { uniqueName, waitFor } from './support/wait.js';

const TEAM_A = uniqueName('team-a');
const TEAM_B = uniqueName('team-b');
const ALICE = `system:serviceaccount:${TEAM_A}:alice`;
/** Kept answers live this long here (the default is 10 s), so a revoked RoleBinding is seen soon. */
const CACHE_SECONDS = 3;
const nginxes = (namespace: string) => `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;

const client = runtimeClient();
let app: ControlPlane;
let token: string;
let auditLog: { path: string; restore: () => Promise<void> } | undefined;
const sockets: Socket[] = [];

/** An audit event with the impersonation fields kube-apiserver writes. */
type ImpersonatedEvent = AuditEvent & { impersonatedUser?: { username?: string; groups?: string[] } };

async function call(path: string, init: RequestInit & { as?: string } = {}) {
  const response = await fetch(`${app.url}${path}`, {
    ...init,
    headers: {
      Authorization: `Bearer ${init.as ?? token}`,
      'Content-Type': 'application/json',
      ...(init.headers as Record<string, string>),
    },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const patchReplicas = (namespace: string, replicas: number, subresource = '') =>
  call(`${nginxes(namespace)}/web${subresource}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({ spec: { replicas } }),
  });

const replicasIn = async (namespace: string) =>
  Number(
    await kubectl('get', 'nginx.mycompany.com', 'web', '-n', namespace, '-o', 'jsonpath={.spec.replicas}'),
  );

/** `kubectl auth can-i` against our API (over TLS) with alice's token: what the UI's controls are shown from. */
async function canIHere(...args: string[]): Promise<boolean> {
  const kubeArgs = [
    `--server=${app.httpsUrl}`,
    `--certificate-authority=${CA_FILE}`,
    `--token=${token}`,
    `--cache-dir=${join(scratch, 'cache')}`,
    'auth',
    'can-i',
    ...args,
  ];
  const env = { ...process.env, KUBECONFIG: join(scratch, 'no-kubeconfig') };
  try {
    return (await runKubectl(kubeArgs, { env })).trim() === 'yes';
  } catch (error) {
    const { code, stdout } = error as { code?: number; stdout?: string };
    if (code === 1 && stdout?.trim().startsWith('no')) return false;
    throw error;
  }
}
let scratch = '';

/** The ControllerRevision the controller would keep for the Nginx's template (the app runs without it here). */
async function recordRevision(nginx: Nginx, revision: number): Promise<void> {
  const template = podTemplateOf(nginx.spec);
  const hash = revisionOf(template);
  const { name = '', namespace = '', uid } = nginx.metadata;
  try {
    await client.request({
      method: 'POST',
      path: `/apis/apps/v1/namespaces/${namespace}/controllerrevisions`,
      body: {
        apiVersion: 'apps/v1',
        kind: 'ControllerRevision',
        metadata: {
          name: controllerRevisionName(name, hash),
          labels: { 'mycompany.com/nginx': name, 'mycompany.com/revision': hash },
          ownerReferences: [
            {
              apiVersion: 'mycompany.com/v1',
              kind: 'Nginx',
              name,
              uid,
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
    if (!(error instanceof KubeApiError && error.code === 409)) throw error;
  }
}

/** kube-apiserver's audit events from `from` of writes to `namespace`'s Nginx "web". */
const nginxWrites = (from: number, namespace: string) =>
  (readAuditEvents(auditLog!.path, from) as ImpersonatedEvent[]).filter(
    (e) =>
      e.stage === 'ResponseComplete' &&
      e.objectRef?.resource === 'nginxes' &&
      e.objectRef.namespace === namespace &&
      e.objectRef.name === 'web',
  );

function subscribe(request: unknown): Promise<SubscribeAck> {
  const socket = io(app.url, {
    path: '/socket.io',
    auth: { token },
    transports: ['websocket'],
    reconnection: false,
  });
  sockets.push(socket);
  return socket.timeout(10_000).emitWithAck('subscribe', request);
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'ngx-kube-authz-'));
  await applyNginxCrd();
  for (const ns of [TEAM_A, TEAM_B]) await kubectl('create', 'namespace', ns);
  for (const ns of [TEAM_A, TEAM_B])
    await client.request({
      method: 'POST',
      path: nginxes(ns),
      body: {
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        metadata: { name: 'web' },
        spec: { replicas: 0 },
      },
    });
  await kubectl('-n', TEAM_A, 'create', 'serviceaccount', 'alice');
  await kubectl(
    '-n',
    TEAM_A,
    'create',
    'role',
    'nginx-patcher',
    '--verb=get,list,watch,patch',
    '--resource=nginxes.mycompany.com',
  );
  await kubectl(
    '-n',
    TEAM_A,
    'create',
    'rolebinding',
    'alice-patches',
    '--role=nginx-patcher',
    `--serviceaccount=${TEAM_A}:alice`,
  );
  await waitFor('the RoleBinding to take effect', () =>
    canI(ALICE, 'patch', 'nginxes.mycompany.com', '-n', TEAM_A),
  );
  token = (
    await kubectl('-n', TEAM_A, 'create', 'token', 'alice', '--audience', 'nginx-control-plane')
  ).trim();
  auditLog = await withAuditLog(client, join(CLUSTER_DIR, 'apiserver-audit.log'));
  app = await startControlPlane({
    AUTHORIZATION: 'kubernetes',
    AUTHORIZATION_CACHE_SECONDS: String(CACHE_SECONDS),
  });
}, 300_000);

afterAll(async () => {
  for (const socket of sockets) socket.close();
  await app?.stop();
  await auditLog?.restore();
  client.close();
  for (const ns of [TEAM_A, TEAM_B]) await kubectl('delete', 'namespace', ns, '--wait=false').catch(() => {});
});

describe('AUTHORIZATION=kubernetes', () => {
  it("refuses alice's write in team-b with the SubjectAccessReview's 403, and writes nothing", async () => {
    const refused = await patchReplicas(TEAM_B, 2);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      `nginxes.mycompany.com "web" is forbidden: User "${ALICE}" cannot patch resource "nginxes" in API group ` +
        `"mycompany.com" in the namespace "${TEAM_B}"`,
    );
    expect(await replicasIn(TEAM_B)).toBe(0);
    // nginxes does not cover its subresources in RBAC: scale is refused in team-a too.
    const scale = await patchReplicas(TEAM_A, 2, '/scale');
    expect(scale.status).toBe(403);
    expect(scale.body.message).toMatch(/cannot patch resource "nginxes\/scale"/);
  });

  it("sends alice's write in team-a to kube-apiserver as alice (its audit log names her)", async () => {
    const from = auditOffset(auditLog!.path);
    const patched = await patchReplicas(TEAM_A, 2);
    expect(patched.status).toBe(200);
    expect(await replicasIn(TEAM_A)).toBe(2);
    const event = await waitFor('the patch in kube-apiserver’s audit log', () =>
      nginxWrites(from, TEAM_A).find((e) => e.verb === 'patch'),
    );
    expect(event.impersonatedUser?.username).toBe(ALICE);
    expect(event.impersonatedUser?.groups).toEqual(
      expect.arrayContaining(['system:serviceaccounts', `system:serviceaccounts:${TEAM_A}`]),
    );
    expect(event.user?.username).not.toBe(ALICE); // the app's own identity, impersonating her
    expect(event.responseStatus?.code).toBe(200);
  });

  it('rolls back as alice in team-a (sent to kube-apiserver as her), and refuses her rollback in team-b', async () => {
    const path = `${nginxes(TEAM_A)}/web`;
    const v1 = await client.request<Nginx>({ path });
    await recordRevision(v1, 1);
    const changed = await call(path, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { image: 'nginx:1.27' } }),
    });
    expect(changed.status).toBe(200);
    await recordRevision(changed.body as unknown as Nginx, 2);
    const from = auditOffset(auditLog!.path);
    const rollback = (namespace: string) =>
      call(`/controlplane/v1/namespaces/${namespace}/nginxes/web/revisions/1/rollback`, {
        method: 'POST',
        body: '{}',
      });
    const rolled = await rollback(TEAM_A);
    expect(rolled.status, JSON.stringify(rolled.body)).toBe(200);
    expect((await client.request<Nginx>({ path })).spec.image).toBe(v1.spec.image);
    const event = await waitFor('the rollback in kube-apiserver’s audit log', () =>
      nginxWrites(from, TEAM_A).find((e) => e.verb === 'patch'),
    );
    expect(event.impersonatedUser?.username).toBe(ALICE);
    const refused = await rollback(TEAM_B);
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/cannot patch resource "nginxes" .* in the namespace "team-b/);
  });

  it('answers kubectl auth can-i and whoami against our API from the same RBAC', async () => {
    expect(await canIHere('patch', 'nginxes.mycompany.com', '-n', TEAM_A)).toBe(true);
    expect(await canIHere('patch', 'nginxes.mycompany.com', '-n', TEAM_B)).toBe(false);
    expect(await canIHere('patch', 'nginxes.mycompany.com', '--subresource=scale', '-n', TEAM_A)).toBe(false);
    expect(await canIHere('list', 'nginxes.mycompany.com', '--all-namespaces')).toBe(false);
    const whoami = await call('/controlplane/v1/whoami');
    expect(whoami.status).toBe(200);
    expect(whoami.body).toMatchObject({ name: ALICE, role: 'editor', authorization: 'kubernetes' });
    expect(whoami.body.namespaces).toContain(TEAM_A);
    expect(whoami.body.namespaces).not.toContain(TEAM_B);
    expect(whoami.body.writableNamespaces).toContain(TEAM_A);
    expect(whoami.body.writableNamespaces).not.toContain(TEAM_B);
  });

  it("reads a namespace's audit with list there, the whole audit only with list cluster-wide", async () => {
    expect((await call(`/controlplane/v1/audit/changes?namespace=${TEAM_A}`)).status).toBe(200);
    const other = await call(`/controlplane/v1/audit/changes?namespace=${TEAM_B}`);
    expect(other.status).toBe(403);
    expect(other.body.message).toMatch(/cannot list resource "nginxes" .* in the namespace "team-b/);
    const all = await call('/controlplane/v1/audit/changes');
    expect(all.status).toBe(403);
    expect(all.body.message).toMatch(/at the cluster scope/);
    // A static token is the user nginx-control-plane:token:<name>, which no RBAC here names.
    const admin = await call(`${nginxes(TEAM_A)}`, { as: 'admin-token-0123456789abcdef' });
    expect(admin.status).toBe(403);
    expect(admin.body.message).toMatch(/User "nginx-control-plane:token:ann-admin" cannot list/);
  });

  it('lets alice watch team-a live, not team-b', async () => {
    expect(await subscribe({ scope: 'namespace', namespace: TEAM_A })).toMatchObject({ ok: true });
    expect(await subscribe({ scope: 'namespace', namespace: TEAM_B })).toMatchObject({
      ok: false,
      code: 403,
    });
  });

  it('takes a removed RoleBinding into account within the cache lifetime (and for writes at once)', async () => {
    // A question not asked before: its answer is kept from now on.
    const read = `${nginxes(TEAM_A)}/web`;
    const kept = Date.now();
    expect((await call(read)).status).toBe(200);
    await kubectl('-n', TEAM_A, 'delete', 'rolebinding', 'alice-patches');
    await waitFor(
      'kube-apiserver to forget the RoleBinding',
      async () => !(await canI(ALICE, 'patch', 'nginxes.mycompany.com', '-n', TEAM_A)),
    );
    // A write reaches kube-apiserver as alice, whose RBAC refuses it now, whatever answer we still keep.
    const write = await patchReplicas(TEAM_A, 1);
    expect(write.status).toBe(403);
    expect(write.body.message).toMatch(/User "system:serviceaccount:team-a-[^"]*:alice" cannot patch/);
    expect(await replicasIn(TEAM_A)).toBe(2);
    // A read is ours alone to authorize. Whether an answer was kept or asked anew is seen in kube-apiserver's count
    // of SubjectAccessReviews, not guessed from a clock: from here on, reads are allowed only while nothing new is
    // asked (the kept answer), and exactly one new question is asked once it has expired, which refuses.
    const reviews = async () => (await requestCounts()).get('POST subjectaccessreviews') ?? 0;
    const asked = await reviews();
    const next = await call(read);
    const askedForNext = (await reviews()) - asked;
    expect(next.status).toBe(askedForNext === 0 ? 200 : 403);
    const refused =
      next.status === 403
        ? next
        : await waitFor(
            'our API to refuse alice a read in team-a',
            async () => {
              const answer = await call(read);
              return answer.status === 403 && answer;
            },
            { timeoutMs: (CACHE_SECONDS + 5) * 1000, intervalMs: 100 },
          );
    await waitFor('the new SubjectAccessReview counted', async () => (await reviews()) > asked);
    expect((await reviews()) - asked).toBe(1);
    expect(Date.now() - kept).toBeGreaterThanOrEqual(CACHE_SECONDS * 1000);
    expect(refused.body.message).toMatch(/"web" is forbidden: .* cannot get resource "nginxes" .* "team-a/);
  });
});
