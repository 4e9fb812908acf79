// Who may call the API besides the static tokens: Kubernetes ServiceAccount tokens minted for our audience,
// checked by a real TokenReview against the local cluster's kube-apiserver, with the roles AUTH_POLICY_FILE
// grants their users and groups (issue 32).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CA_FILE,
  TOKENS,
  nginxManifest,
  startControlPlane,
  type ControlPlane,
} from './support/control-plane.js';
import { kubectl, runKubectl } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const ADMIN = TOKENS.admin;
const NS = uniqueName('identity');
const OTHER_NS = uniqueName('identity-other');
const CI_USER = `system:serviceaccount:${NS}:ci`;

let app: ControlPlane;
let scratch: string;
let policyFile: string;

const tokenFor = async (account: string, ...audience: string[]) =>
  (await kubectl('-n', NS, 'create', 'token', account, ...audience.flatMap((a) => ['--audience', a]))).trim();

async function call(path: string, token: string, init: RequestInit = {}) {
  const response = await fetch(`${app.url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const nginx = (name: string) => JSON.stringify(nginxManifest(name, 0));

beforeAll(async () => {
  for (const ns of [NS, OTHER_NS]) await kubectl('create', 'namespace', ns);
  for (const account of ['ci', 'stranger']) await kubectl('-n', NS, 'create', 'serviceaccount', account);
  scratch = mkdtempSync(join(tmpdir(), 'ngx-identity-'));
  policyFile = join(scratch, 'policy.yaml');
  writeFileSync(policyFile, `- user: "${CI_USER}"\n  role: editor\n  namespaces: [${NS}]\n`);
  app = await startControlPlane({ AUTH_POLICY_FILE: policyFile });
}, 120_000);

afterAll(async () => {
  await app?.stop();
  for (const ns of [NS, OTHER_NS]) await kubectl('delete', 'namespace', ns, '--wait=false').catch(() => {});
});

describe('ServiceAccount tokens (TokenReview for our audience)', () => {
  it('takes a token minted for nginx-control-plane, with the role the policy grants where it grants it', async () => {
    const token = await tokenFor('ci', 'nginx-control-plane');
    const path = `/apis/mycompany.com/v1/namespaces/${NS}/nginxes`;
    expect((await call(path, token)).status).toBe(200);
    const created = await call(path, token, { method: 'POST', body: nginx('by-ci') });
    expect(created.status).toBe(201);
    const elsewhere = await call(`/apis/mycompany.com/v1/namespaces/${OTHER_NS}/nginxes`, token, {
      method: 'POST',
      body: nginx('by-ci'),
    });
    expect(elsewhere.status).toBe(403);
    // kubectl against our API (over TLS: kubectl sends tokens only there), as a CI job would call it.
    const listed = await runKubectl(
      [
        `--server=${app.httpsUrl}`,
        `--certificate-authority=${CA_FILE}`,
        `--token=${token}`,
        `--cache-dir=${join(scratch, 'cache')}`,
        '-n',
        NS,
        'get',
        'nginxes.mycompany.com',
        '-o',
        'name',
      ],
      { env: { ...process.env, KUBECONFIG: join(scratch, 'no-kubeconfig') } },
    );
    expect(listed.trim()).toBe('nginx.mycompany.com/by-ci');
    // The audit names the ServiceAccount (written within the writer's flush interval).
    const change = await waitFor('the create in the audit', async () => {
      const audit = await call(`/controlplane/v1/audit/changes?namespace=${NS}&name=by-ci`, ADMIN);
      return (audit.body.items as Record<string, unknown>[] | undefined)?.[0];
    });
    expect(change).toMatchObject({
      actor: CI_USER,
      verb: 'create',
      role: 'editor',
      authenticatedBy: 'serviceaccount',
      actorEmail: null,
    });
    // The groups TokenReview gave the ServiceAccount, as it signed in.
    expect(change.actorGroups).toEqual(
      expect.arrayContaining([
        'system:serviceaccounts',
        `system:serviceaccounts:${NS}`,
        'system:authenticated',
      ]),
    );
    // A static token's write in the same namespace names no groups.
    expect(
      (
        await call(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes`, ADMIN, {
          method: 'POST',
          body: nginx('by-admin'),
        })
      ).status,
    ).toBe(201);
    const byAdmin = await waitFor('the static token create in the audit', async () => {
      const audit = await call(`/controlplane/v1/audit/changes?namespace=${NS}&name=by-admin`, ADMIN);
      return (audit.body.items as Record<string, unknown>[] | undefined)?.[0];
    });
    expect(byAdmin).toMatchObject({ authenticatedBy: 'static-token', actorGroups: null, actorEmail: null });
  });

  it('refuses a token for another audience, or for kube-apiserver itself (401), and one the policy does not name (403)', async () => {
    const path = `/apis/mycompany.com/v1/namespaces/${NS}/nginxes`;
    const other = await call(path, await tokenFor('ci', 'another-service'));
    expect(other.status).toBe(401);
    expect(other.body.message).toMatch(/audience nginx-control-plane/);
    expect((await call(path, await tokenFor('ci'))).status).toBe(401);
    const stranger = await call(path, await tokenFor('stranger', 'nginx-control-plane'));
    expect(stranger.status).toBe(403);
    expect(stranger.body.message).toMatch(/grants it nothing/);
    const forged = await tokenFor('ci', 'nginx-control-plane');
    const [header, payload] = forged.split('.');
    expect((await call(path, `${header}.${payload}.c2lnbmF0dXJl`)).status).toBe(401);
    expect((await call(path, ADMIN)).status).toBe(200); // static tokens as before
  });

  it('takes effect at once when the policy file changes', async () => {
    const token = await tokenFor('ci', 'nginx-control-plane');
    const path = `/apis/mycompany.com/v1/namespaces/${NS}/nginxes`;
    writeFileSync(
      policyFile,
      `- user: "${CI_USER}"\n  role: viewer\n  namespaces: [${NS}]\n# now a viewer\n`,
    );
    await waitFor('the policy file read again: ci a viewer', async () => {
      const whoami = await call('/controlplane/v1/whoami', token);
      return whoami.status === 200 && whoami.body.role === 'viewer';
    });
    expect((await call(path, token)).status).toBe(200);
    expect((await call(path, token, { method: 'POST', body: nginx('by-viewer') })).status).toBe(403);
  });
});
