// Runs alone: installs the CRD with CEL rules on spec.image and without its default, which every file's Nginxes would meet.
// The image policy against the local cluster: the controller's pods pass the `restricted` Pod Security Standard
// (kube-apiserver's PodSecurity admission enforces it) and carry no ServiceAccount token; IMAGE_ALLOWLIST is
// enforced by the control plane's REST API on every verb before anything is relayed, and, in the CRD the app
// installs, by the API server itself for writes that never pass the control plane.
//
// Every test file shares one cluster and one CRD, and this one installs the CRD with CEL rules: it puts the plain
// CRD back (as the app's own field manager, which owns the rules, then deploy/crd) before it ends.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import { NGINX_CRD_NAME, nginxCrd, type JsonSchema, type Nginx } from '../libs/nginx-api/src/index.js';
import { startApp, type AppProcess } from './support/app-process.js';
import { TOKEN_NAMES, nginxManifest, startControlPlane, type ControlPlane } from './support/control-plane.js';
import { applyNginxCrd, kubectl, kubectlApply } from './support/kubectl.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const ALLOWLIST = 'docker.io/library/nginx,registry.example.com/web/';
const DISALLOWED = 'evil.example/miner:1';
const CRD_PATH = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${NGINX_CRD_NAME}`;
const client = runtimeClient();
const json = { 'Content-Type': 'application/json' };

const nginxesIn = (ns: string) => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`;
const withImage = (name: string, image: string | undefined, replicas = 1) =>
  nginxManifest(name, replicas, { spec: { replicas, ...(image === undefined ? {} : { image }) } });
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Status and Nginx bodies, read loosely
const body = async (response: Response) => (await response.json()) as Record<string, any>;

/** The error a direct request to the API server ends with (undefined if it succeeded). */
const failure = (request: Promise<unknown>) =>
  request.then(
    () => undefined,
    (error: unknown) => error as KubeApiError,
  );

/** The rules on spec.image of the CRD the API server holds now. */
async function imageSchema(): Promise<JsonSchema> {
  const crd = await client.request<ReturnType<typeof nginxCrd>>({ path: CRD_PATH });
  return crd.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!.image!;
}

/** The plain CRD, applied as the app applies it (its field manager owns the rules) and then from deploy/crd. */
async function restorePlainCrd(): Promise<void> {
  await client.request({
    method: 'PATCH',
    path: CRD_PATH,
    query: { fieldManager: 'nginx-control-plane', force: true },
    contentType: 'application/apply-patch+yaml',
    body: nginxCrd(),
  });
  await applyNginxCrd();
  expect((await imageSchema())['x-kubernetes-validations']).toBeUndefined();
}

/** Whether the API server refuses, in a dry run, an Nginx with `image` in `ns` (its CRD handler takes a moment). */
async function apiServerRefuses(ns: string, image: string): Promise<boolean> {
  const error = await failure(
    client.request({
      method: 'POST',
      path: nginxesIn(ns),
      query: { dryRun: 'All' },
      body: withImage(uniqueName('probe'), image),
    }),
  );
  return error instanceof KubeApiError && error.code === 422;
}

afterAll(async () => {
  await restorePlainCrd();
  client.close();
});

describe('pods in a namespace enforcing the restricted Pod Security Standard', () => {
  const ns = uniqueName('restricted');
  let cp: ControlPlane;

  beforeAll(async () => {
    await kubectl('create', 'namespace', ns);
    await kubectl(
      'label',
      'namespace',
      ns,
      'pod-security.kubernetes.io/enforce=restricted',
      'pod-security.kubernetes.io/enforce-version=latest',
    );
    cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: ns });
  });
  afterAll(async () => {
    await cp?.stop();
    await kubectl('delete', 'namespace', ns, '--wait=false').catch(() => {});
  });

  it('refuses a plain pod there (the PodSecurity admission is on)', async () => {
    const error = await failure(
      client.request({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/pods`,
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'plain' },
          spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
        },
      }),
    );
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error?.code).toBe(403);
    expect(error?.message).toContain('violates PodSecurity "restricted:latest"');
  });

  it("admits an Nginx's pods, which reach Running as nginx (101) with no ServiceAccount token", async () => {
    const name = uniqueName('web');
    const created = await cp.as('editor')(nginxesIn(ns), {
      method: 'POST',
      headers: json,
      body: JSON.stringify(withImage(name, 'nginx:1.27', 2)),
    });
    expect(created.status).toBe(201);
    await waitFor(
      '2 ready pods',
      async () => {
        const nginx = await client.request<Nginx>({ path: `${nginxesIn(ns)}/${name}` });
        return nginx.status?.readyReplicas === 2;
      },
      { timeoutMs: 30_000 },
    );
    const pods = (
      await client.request<{ items: V1Pod[] }>({
        path: `/api/v1/namespaces/${ns}/pods`,
        query: { labelSelector: `mycompany.com/nginx=${name}` },
      })
    ).items;
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      expect(pod.status?.phase).toBe('Running');
      expect(pod.spec?.automountServiceAccountToken).toBe(false);
      expect(pod.spec?.volumes?.map((v) => v.name)).toEqual(['nginx-cache', 'nginx-run']);
      expect(pod.spec?.securityContext).toMatchObject({
        runAsNonRoot: true,
        runAsUser: 101,
        seccompProfile: { type: 'RuntimeDefault' },
      });
      const [container] = pod.spec?.containers ?? [];
      expect(container?.volumeMounts?.map((m) => m.mountPath)).toEqual(['/var/cache/nginx', '/var/run']);
      expect(container?.securityContext).toMatchObject({
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
    }
    const nginx = await client.request<Nginx>({ path: `${nginxesIn(ns)}/${name}` });
    expect(nginx.status?.conditions?.find((c) => c.type === 'ReplicaFailure')?.status ?? 'False').toBe(
      'False',
    );
    expect(
      (
        await kubectl('get', 'events', '-n', ns, '--field-selector', 'reason=FailedCreate', '-o', 'name')
      ).trim(),
    ).toBe('');
  });
});

describe('IMAGE_ALLOWLIST on the control plane REST API', () => {
  const ns = uniqueName('images');
  const collection = nginxesIn(ns);
  let cp: ControlPlane;

  beforeAll(async () => {
    await kubectl('create', 'namespace', ns);
    // The plain CRD and INSTALL_CRD=false: the API server takes any image, so every refusal here is the API's.
    await restorePlainCrd();
    cp = await startControlPlane({ IMAGE_ALLOWLIST: ALLOWLIST, INSTALL_CRD: 'false' });
  });
  afterAll(async () => {
    await cp?.stop();
    await kubectl('delete', 'namespace', ns, '--wait=false').catch(() => {});
  });

  const editor = () => cp.as('editor');
  const stored = (name: string) => client.request<Nginx>({ path: `${collection}/${name}` });

  /** A 422 Invalid Status whose one cause is spec.image, Forbidden. */
  async function expectImageRefusal(response: Response) {
    expect(response.status).toBe(422);
    const status = await body(response);
    expect(status).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    expect(status.details.causes).toEqual([
      { field: 'spec.image', reason: 'FieldValueForbidden', message: expect.any(String) },
    ]);
    expect(status.message).toContain('is under none of the allowed image prefixes');
  }

  it('says at start how to make the API server enforce it too, and tells the UI the prefixes', async () => {
    expect(cp.output()).toContain(`npm run crd:generate -- --image-allowlist=${ALLOWLIST}`);
    expect(await body(await cp.as('viewer')('/controlplane/v1/whoami'))).toMatchObject({
      imageAllowlist: ['docker.io/library/nginx', 'registry.example.com/web/'],
    });
  });

  it('creates Nginxes whose image is under an allowed prefix, in any spelling', async () => {
    for (const image of ['nginx:1.27', 'docker.io/library/nginx:1.27', 'registry.example.com/web/app:1']) {
      const response = await editor()(collection, {
        method: 'POST',
        headers: json,
        body: JSON.stringify(withImage(uniqueName('ok'), image)),
      });
      expect(response.status, image).toBe(201);
    }
  });

  it('refuses a create with another image with 422 on spec.image, and creates nothing', async () => {
    for (const image of [
      DISALLOWED,
      'registry.example.com/website',
      'docker.io/nginxinc/nginx-unprivileged',
    ]) {
      const name = uniqueName('refused');
      await expectImageRefusal(
        await editor()(collection, {
          method: 'POST',
          headers: json,
          body: JSON.stringify(withImage(name, image)),
        }),
      );
      expect(await failure(stored(name))).toMatchObject({ code: 404 });
    }
  });

  it('refuses the image on update, merge patch, JSON patch and apply, the object left as it was', async () => {
    const name = uniqueName('kept');
    const path = `${collection}/${name}`;
    const created = await editor()(collection, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(withImage(name, 'nginx:1.27')),
    });
    expect(created.status).toBe(201);
    const object = await body(created);
    const apply = `${path}?fieldManager=${TOKEN_NAMES.editor}&force=true`;
    const applied = (image: string) =>
      `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: ${name}\nspec:\n  replicas: 1\n  image: ${image}\n`;

    const attempts: [string, string, RequestInit][] = [
      [
        'update',
        path,
        {
          method: 'PUT',
          headers: json,
          body: JSON.stringify({ ...object, spec: { replicas: 1, image: DISALLOWED } }),
        },
      ],
      [
        'merge patch',
        path,
        {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/merge-patch+json' },
          body: JSON.stringify({ spec: { image: DISALLOWED } }),
        },
      ],
      [
        'JSON patch',
        path,
        {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json-patch+json' },
          body: JSON.stringify([{ op: 'replace', path: '/spec/image', value: DISALLOWED }]),
        },
      ],
      [
        'apply',
        apply,
        {
          method: 'PATCH',
          headers: { 'Content-Type': 'application/apply-patch+yaml' },
          body: applied(DISALLOWED),
        },
      ],
    ];
    for (const [verb, url, init] of attempts) {
      await expectImageRefusal(await editor()(url, init));
      const now = await stored(name);
      expect(now.spec.image, verb).toBe('nginx:1.27');
      expect(now.metadata.resourceVersion, verb).toBe(object.metadata.resourceVersion);
    }

    // The same verbs with allowed images go through.
    const merged = await editor()(path, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ spec: { image: 'registry.example.com/web/app:2' } }),
    });
    expect(merged.status).toBe(200);
    const appliedOk = await editor()(apply, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: applied('nginx:1.28'),
    });
    expect(appliedOk.status).toBe(200);
    const current = await stored(name);
    const put = await editor()(path, {
      method: 'PUT',
      headers: json,
      body: JSON.stringify({ ...current, spec: { replicas: 2, image: 'docker.io/library/nginx:1.28' } }),
    });
    expect(put.status).toBe(200);
    expect((await stored(name)).spec).toEqual({ replicas: 2, image: 'docker.io/library/nginx:1.28' });
  });
});

describe('IMAGE_ALLOWLIST in the CRD the app installs (INSTALL_CRD=true)', () => {
  const ns = uniqueName('cel');
  let api: AppProcess | undefined;
  const start = async (env: Record<string, string>) => {
    api = await startApp({ WEB_MODE: 'off', CONTROLLER: 'false', DATABASE_URL: 'file::memory:', ...env });
    return api;
  };

  beforeAll(async () => {
    await kubectl('create', 'namespace', ns);
  });
  afterEach(async () => {
    await api?.stop();
    api = undefined;
  });
  afterAll(async () => {
    await kubectl('delete', 'namespace', ns, '--wait=false').catch(() => {});
  });

  it('makes kube-apiserver refuse a disallowed image written to it directly, and take an allowed one', async () => {
    const app = await start({ IMAGE_ALLOWLIST: ALLOWLIST });
    expect(app.output()).toContain(
      'nginxes.mycompany.com installed and established, its spec.image limited to docker.io/library/nginx, registry.example.com/web/',
    );
    expect((await imageSchema())['x-kubernetes-validations']).toHaveLength(2);
    await waitFor('the API server to apply the rules', () => apiServerRefuses(ns, DISALLOWED));

    const name = uniqueName('direct');
    const error = await failure(
      client.request({ method: 'POST', path: nginxesIn(ns), body: withImage(name, DISALLOWED) }),
    );
    expect(error).toBeInstanceOf(KubeApiError);
    expect(error).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(error?.status.details?.causes).toContainEqual(
      expect.objectContaining({ field: 'spec.image', reason: 'FieldValueForbidden' }),
    );
    expect(error?.message).toContain('must name an image under one of the allowed prefixes');
    expect(await failure(client.request({ path: `${nginxesIn(ns)}/${name}` }))).toMatchObject({ code: 404 });

    // kubectl against kube-apiserver, as an admin would: refused the same way.
    await expect(
      kubectlApply(JSON.stringify(withImage(uniqueName('kubectl'), 'registry.example.com/website')), ns),
    ).rejects.toThrow(/must name an image under one of the allowed prefixes/);

    for (const image of ['nginx:1.27', 'index.docker.io/library/nginx', 'registry.example.com/web/app:1'])
      await client.request({
        method: 'POST',
        path: nginxesIn(ns),
        body: withImage(uniqueName('allowed'), image),
      });
    // The default image (nginx:latest) is allowed here, so an Nginx may still leave spec.image out.
    await client.request({
      method: 'POST',
      path: nginxesIn(ns),
      body: withImage(uniqueName('default'), undefined),
    });
  });

  it('requires spec.image where the allow-list does not admit the default image (nginx:latest)', async () => {
    // The API server refuses a CRD whose default fails its own rules: the app installs one without the default.
    const app = await start({ IMAGE_ALLOWLIST: 'registry.example.com/web/' });
    expect(app.output()).toContain('installed and established');
    await waitFor('the API server to apply the rules', () => apiServerRefuses(ns, 'nginx:1.27'));
    const error = await failure(
      client.request({
        method: 'POST',
        path: nginxesIn(ns),
        body: withImage(uniqueName('unset'), undefined),
      }),
    );
    expect(error).toMatchObject({ code: 422 });
    expect(error?.status.details?.causes).toContainEqual(
      expect.objectContaining({ field: 'spec.image', reason: 'FieldValueRequired' }),
    );
  });

  it('drops the rules again when the app starts without an allow-list', async () => {
    await start({});
    expect((await imageSchema())['x-kubernetes-validations']).toBeUndefined();
    await waitFor(
      'the API server to take any image again',
      async () => !(await apiServerRefuses(ns, DISALLOWED)),
    );
  });
});
