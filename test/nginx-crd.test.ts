// Runs alone: removes and reinstalls the Nginx CRD every file uses.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import { runAppToExit, startApp, type AppProcess } from './support/app-process.js';
import { kubectl } from './support/kubectl.js';
import { KUBECONFIG_PATH, ROOT } from './support/paths.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const CRD = 'customresourcedefinition/nginxes.mycompany.com';
const client = runtimeClient();
const nginxes = '/apis/mycompany.com/v1/namespaces/default/nginxes';

async function crdExists(): Promise<boolean> {
  return kubectl('get', CRD, '-o', 'name').then(
    () => true,
    () => false,
  );
}

async function removeCrd(): Promise<void> {
  await kubectl('delete', CRD, '--ignore-not-found', '--wait=true');
  await waitFor('the CRD to be gone', async () => !(await crdExists()));
}

afterAll(() => client.close());

describe('installing the Nginx CRD at start', () => {
  it('leaves the CRD alone with INSTALL_CRD=false', async () => {
    await removeCrd();
    const api = await startApp({ WEB_MODE: 'off', INSTALL_CRD: 'false', DATABASE_URL: 'file::memory:' });
    try {
      expect(api.output()).toContain('INSTALL_CRD=false');
      expect(await crdExists()).toBe(false);
    } finally {
      await api.stop();
    }
  });

  it('refuses a value of INSTALL_CRD it does not understand', async () => {
    const { code, output } = await runAppToExit({ INSTALL_CRD: 'maybe', WEB_MODE: 'off' });
    expect(code).toBe(2);
    expect(output).toContain('INSTALL_CRD must be true or false (got "maybe")');
  });

  it('stops the app with a clear reason when its identity may not install CRDs', async () => {
    // A service account with no roles at all, signed in by token.
    await kubectl('create', 'serviceaccount', 'no-rights', '-n', 'default').catch(() => {});
    const token = (await kubectl('create', 'token', 'no-rights', '-n', 'default')).trim();
    const admin = readFileSync(KUBECONFIG_PATH, 'utf8');
    const server = /server: (\S+)/.exec(admin)![1]!;
    const ca = /certificate-authority: (\S+)/.exec(admin)![1]!;
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'ngx-sa-')), 'kubeconfig');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: ${server}, certificate-authority: ${ca}}}]\n` +
        `users: [{name: u, user: {token: ${token}}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n`,
    );
    const { code, output } = await runAppToExit({
      KUBECONFIG: kubeconfig,
      WEB_MODE: 'off',
      DATABASE_URL: 'file::memory:',
    });
    expect(code).toBe(3);
    expect(output).toContain('could not install nginxes.mycompany.com (403 Forbidden');
    expect(output).toContain('INSTALL_CRD=false');
  });

  it('installs it by default and waits until it is served', async () => {
    const api = await startApp({ WEB_MODE: 'off', DATABASE_URL: 'file::memory:' });
    try {
      expect(api.output()).toContain('nginxes.mycompany.com installed and established');
      const established = await kubectl(
        'get',
        CRD,
        '-o',
        'jsonpath={.status.conditions[?(@.type=="Established")].status}',
      );
      expect(established).toBe('True');
    } finally {
      await api.stop();
    }
  });
});

describe('the Nginx resource', () => {
  let api: AppProcess;
  beforeAll(async () => {
    api = await startApp({ WEB_MODE: 'off', DATABASE_URL: 'file::memory:' }); // (re)installs the CRD
  });
  afterAll(async () => {
    await kubectl('delete', 'ngx', 'my-deployment', '--ignore-not-found');
    await api?.stop();
  });

  it("accepts the seed's manifest exactly as written, defaulting the image", async () => {
    await kubectl('delete', 'ngx', 'my-deployment', '--ignore-not-found');
    expect(await kubectl('apply', '-f', join(ROOT, 'test/fixtures/seed-nginx.yaml'))).toContain(
      'nginx.mycompany.com/my-deployment created',
    );
    const spec = JSON.parse(
      await kubectl('get', 'nginx', 'my-deployment', '-n', 'default', '-o', 'jsonpath={.spec}'),
    );
    expect(spec).toEqual({ replicas: 2, image: 'nginx:latest' });
  });

  it('prints the Desired, Current, Ready, Image and Age columns and answers to its short name', async () => {
    const table = await kubectl('get', 'ngx', 'my-deployment');
    expect(table.split('\n')[0]).toMatch(/^NAME\s+DESIRED\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+IMAGE\s+AGE$/);
    // Ready, Up-to-date and Available stay empty until a controller writes status (this file's own may have, each
    // as soon as it has a value).
    expect(table).toMatch(/my-deployment\s+2\s+(\d+\s+){0,3}nginx:latest/);
  });

  it('scales through the scale subresource with kubectl scale', async () => {
    await kubectl('scale', 'ngx/my-deployment', '--replicas=5');
    expect(await kubectl('get', 'ngx', 'my-deployment', '-o', 'jsonpath={.spec.replicas}')).toBe('5');
    const scale = await client.request<{ kind: string; spec: { replicas: number } }>({
      path: `${nginxes}/my-deployment/scale`,
    });
    expect(scale).toMatchObject({ kind: 'Scale', spec: { replicas: 5 } });
  });

  it.each([
    ['replicas: -1', { replicas: -1 }, 'spec.replicas'],
    ['replicas: "two"', { replicas: 'two' }, 'spec.replicas'],
    ['replicas above the maximum', { replicas: 1001 }, 'spec.replicas'],
    ['no replicas', { image: 'nginx:1.27' }, 'spec.replicas'],
    ['an empty image', { replicas: 1, image: '' }, 'spec.image'],
  ])('rejects %s with 422 Invalid naming the field, and stores nothing', async (_what, spec, field) => {
    const name = uniqueName('invalid');
    const attempt = client.request({
      method: 'POST',
      path: nginxes,
      body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name }, spec },
    });
    const error = await attempt.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(
      (error as KubeApiError).status.details?.causes?.some((cause) => cause.field?.includes(field)),
    ).toBe(true);
    await expect(client.request({ path: `${nginxes}/${name}` })).rejects.toMatchObject({ code: 404 });
  });

  it('rejects an object with no spec', async () => {
    const attempt = client.request({
      method: 'POST',
      path: nginxes,
      body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name: uniqueName('nospec') } },
    });
    await expect(attempt).rejects.toMatchObject({ code: 422 });
  });
});
