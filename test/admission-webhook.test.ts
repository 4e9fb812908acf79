// Runs alone: registers a validating webhook that every Nginx write in the cluster goes through.
// The validating admission webhook for Nginxes (issue 34): a bad config written with kubectl straight to
// kube-apiserver is refused with the line, in the words of our REST API's 422; good writes, dry runs and updates are
// judged alike; bad AdmissionReviews are answered 400; and with the app stopped, the cluster's other writes and
// Nginx writes still pass (failurePolicy: Ignore), the controller flagging a bad config once it runs again.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Nginx } from '../libs/nginx-api/src/index.js';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import { ADMISSION_PATH } from '../apps/api/src/admission/webhook-configuration.js';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { kubectl, KUBECTL } from './support/kubectl.js';
import { createNamespace } from './support/operations.js';
import { CLUSTER_DIR, KUBECONFIG_PATH, ROOT } from './support/paths.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const TOKEN = 'admission-editor-token-0123456789';
const BROKEN = 'server {\n  listen 80;\n  location / { return 200 }\n}\n';
const GOOD = 'server {\n  listen 80;\n  location / { return 200; }\n}\n';
const CONFIGURATIONS = '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations';

let ns: string;
let app: AppProcess;
let webhookName: string;

const manifest = (name: string, config: string) =>
  JSON.stringify({
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name, namespace: ns },
    spec: { replicas: 1, config },
  });

/** `kubectl apply -f -` (extra flags first) as the cluster admin, straight to kube-apiserver: its exit and output. */
function kubectlApply(
  body: string,
  ...flags: string[]
): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(KUBECTL, ['--kubeconfig', KUBECONFIG_PATH, 'apply', ...flags, '-f', '-'], {
      cwd: ROOT,
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
    child.stdin.end(body);
  });
}

const nginxPath = (name = '') => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes${name ? `/${name}` : ''}`;
const getNginx = (name: string) => client.request<Nginx>({ path: nginxPath(name) });
const exists = (name: string) =>
  getNginx(name).then(
    () => true,
    (error: unknown) => {
      if (error instanceof KubeApiError && error.code === 404) return false;
      throw error;
    },
  );

/** Our REST API's answer to creating the same object: its 422 Status. */
async function restRefusal(name: string, config: string) {
  const response = await fetch(`${app.url}${nginxPath()}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
    body: manifest(name, config),
  });
  expect(response.status).toBe(422);
  return (await response.json()) as { message: string; details: unknown };
}

/** kube-apiserver's own answer to creating the object (the Status the webhook's refusal becomes). */
async function apiserverRefusal(name: string, config: string, query: Record<string, string> = {}) {
  try {
    await client.request({
      method: 'POST',
      path: nginxPath(),
      query,
      body: JSON.parse(manifest(name, config)),
    });
  } catch (error) {
    if (error instanceof KubeApiError) return error;
    throw error;
  }
  throw new Error(`kube-apiserver accepted ${name}`);
}

beforeAll(async () => {
  ns = await createNamespace(client, 'admission', cleanups);
  webhookName = `${ns}.nginxes.mycompany.com`;
  cleanups.push(() => client.request({ method: 'DELETE', path: `${CONFIGURATIONS}/${webhookName}` }));
  app = await startApp({
    ...HEADLESS,
    WATCH_NAMESPACE: ns,
    LEASE_NAMESPACE: ns,
    ADMISSION_WEBHOOK: 'true',
    AUTH_TOKENS: `ci:editor:${TOKEN}`,
  });
  const caBundle = readFileSync(join(CLUSTER_DIR, 'pki/ca.crt')).toString('base64');
  await waitFor(`the ValidatingWebhookConfiguration ${webhookName} with the cluster's CA`, async () => {
    const config = await client.request<{ webhooks: { clientConfig: { caBundle: string } }[] }>({
      path: `${CONFIGURATIONS}/${webhookName}`,
    });
    return config.webhooks[0]?.clientConfig.caBundle === caBundle;
  });
  // kube-apiserver's webhook configuration cache lags the write a little: wait until a known-bad object is refused.
  const probe = uniqueName('probe');
  await waitFor(
    'kube-apiserver calling the webhook',
    async () => (await kubectlApply(manifest(probe, BROKEN), '--dry-run=server')).code !== 0,
    { timeoutMs: 30_000, intervalMs: 250 },
  );
}, 120_000);

afterAll(async () => {
  await app?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

describe('the admission webhook for nginxes', () => {
  it('registers itself for CREATE and UPDATE of nginxes in its namespace, failurePolicy Ignore, 5 s', async () => {
    const config = await client.request<{ webhooks: Record<string, unknown>[] }>({
      path: `${CONFIGURATIONS}/${webhookName}`,
    });
    expect(config.webhooks).toHaveLength(1);
    expect(config.webhooks[0]).toMatchObject({
      name: webhookName,
      clientConfig: { url: `${app.url.replace('http:', 'https:')}${ADMISSION_PATH}` },
      rules: [{ apiGroups: ['mycompany.com'], operations: ['CREATE', 'UPDATE'], resources: ['nginxes'] }],
      failurePolicy: 'Ignore',
      sideEffects: 'None',
      timeoutSeconds: 5,
      matchPolicy: 'Equivalent',
      admissionReviewVersions: ['v1'],
      namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', values: [ns] }] },
    });
  });

  it("refuses a bad config written with kubectl straight to kube-apiserver, naming line 3 as our API's 422 does", async () => {
    onTestFailed(() => console.log(app.output().slice(-4000)));
    const name = uniqueName('bad');
    const applied = await kubectlApply(manifest(name, BROKEN));
    expect(applied.code).not.toBe(0);
    const rest = await restRefusal(name, BROKEN);
    expect(rest.message).toMatch(/spec\.config: .*line 3: unexpected "}"/);
    // kubectl prints a 422 from its causes, as it does for our API's.
    expect(applied.err).toContain(`The Nginx "${name}" is invalid: spec.config: `);
    expect(applied.err).toContain('not valid nginx configuration: line 3: unexpected "}"');
    const refused = await apiserverRefusal(name, BROKEN);
    expect(refused.code).toBe(422);
    expect(refused.status.reason).toBe('Invalid');
    expect(refused.status.message).toBe(
      `admission webhook "${webhookName}" denied the request: ${rest.message}`,
    );
    expect(refused.status.details).toEqual(rest.details);
    expect(await exists(name)).toBe(false);
  });

  it('lets a good config through, and refuses an UPDATE to a bad one, leaving the object as it was', async () => {
    const name = uniqueName('good');
    const created = await kubectlApply(manifest(name, GOOD));
    expect(created).toMatchObject({ code: 0 });
    const updated = await kubectlApply(manifest(name, BROKEN));
    expect(updated.code).not.toBe(0);
    expect(updated.err).toContain('line 3: unexpected "}"');
    const patched = await client
      .request({
        method: 'PATCH',
        path: nginxPath(name),
        contentType: 'application/merge-patch+json',
        body: { spec: { config: BROKEN } },
      })
      .catch((error: unknown) => error);
    expect(patched).toBeInstanceOf(KubeApiError);
    expect((patched as KubeApiError).code).toBe(422);
    expect((await getNginx(name)).spec.config).toBe(GOOD);
    // Status writes are not judged (the subresource is not registered): the controller's own stay free.
    await client.request({
      method: 'PATCH',
      path: `${nginxPath(name)}/status`,
      contentType: 'application/merge-patch+json',
      body: { status: { observedGeneration: 0 } },
    });
  });

  it('judges server-side dry runs the same, changing nothing', async () => {
    const bad = uniqueName('dry-bad');
    const refused = await kubectlApply(manifest(bad, BROKEN), '--dry-run=server');
    expect(refused.code).not.toBe(0);
    expect(refused.err).toContain('line 3: unexpected "}"');
    const dry = await apiserverRefusal(bad, BROKEN, { dryRun: 'All' });
    expect(dry.code).toBe(422);
    const good = uniqueName('dry-good');
    expect(await kubectlApply(manifest(good, GOOD), '--dry-run=server')).toMatchObject({ code: 0 });
    expect(await exists(bad)).toBe(false);
    expect(await exists(good)).toBe(false);
  });

  it('answers bodies that are no AdmissionReview with 400 (no token needed), and stays up', async () => {
    const post = (body: string, type = 'application/json') =>
      fetch(`${app.url}${ADMISSION_PATH}`, { method: 'POST', headers: { 'Content-Type': type }, body });
    for (const body of [
      '',
      'not json',
      '[]',
      '{"kind":"AdmissionReview"}',
      '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":""}}',
    ]) {
      const response = await post(body);
      expect(response.status, body).toBe(400);
      expect(await response.json()).toMatchObject({ kind: 'Status', code: 400 });
    }
    expect((await post('{}', 'application/yaml')).status).toBe(415);
    expect((await post(' '.repeat(9 * 1024 * 1024))).status).toBe(413);
    const review = {
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: {
        uid: 'a1',
        operation: 'CREATE',
        namespace: ns,
        resource: { group: 'mycompany.com', version: 'v1', resource: 'nginxes' },
        object: JSON.parse(manifest('direct', BROKEN)),
      },
    };
    const answered = await post(JSON.stringify(review));
    expect(answered.status).toBe(200);
    expect(await answered.json()).toMatchObject({
      kind: 'AdmissionReview',
      response: { uid: 'a1', allowed: false, status: { code: 422, reason: 'Invalid' } },
    });
    // Larger than our REST API's 1 MiB bodies, within the review's 8 MiB: an UPDATE carries two objects.
    const large = {
      ...review,
      request: {
        ...review.request,
        uid: 'a2',
        operation: 'UPDATE',
        object: JSON.parse(manifest('direct', `# ${'x'.repeat(300 * 1024)}\n`)),
        oldObject: { ...JSON.parse(manifest('direct', GOOD)), padding: 'y'.repeat(2 * 1024 * 1024) },
      },
    };
    const judgedLarge = await post(JSON.stringify(large));
    expect(judgedLarge.status).toBe(200);
    expect(await judgedLarge.json()).toMatchObject({
      response: {
        uid: 'a2',
        allowed: false,
        status: {
          code: 422,
          details: {
            causes: expect.arrayContaining([
              expect.objectContaining({ field: 'spec.config', reason: 'FieldValueTooLong' }),
            ]),
          },
        },
      },
    });
    expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
  });

  it('counts its reviews by operation and outcome in /metrics, with their durations', async () => {
    const samples = async () => {
      const text = await (await fetch(`${app.url}/metrics`)).text();
      const value = (line: string) => Number(line.split(' ').at(-1));
      return {
        text,
        reviews: (operation: string, outcome: string) =>
          value(
            text
              .split('\n')
              .find((line) =>
                line.startsWith(
                  `nginx_admission_reviews_total{operation="${operation}",outcome="${outcome}"} `,
                ),
              ) ?? ' 0',
          ),
      };
    };
    // An Nginx of its own to update, created before the counts are read.
    const updated = uniqueName('metrics-update');
    expect((await kubectlApply(manifest(updated, GOOD))).code).toBe(0);
    const before = await samples();

    // One of each, its own (nothing left by the tests above is counted on): each counter moves by exactly one.
    const bad = uniqueName('metrics-bad');
    expect((await kubectlApply(manifest(bad, BROKEN), '--dry-run=server')).code).not.toBe(0);
    expect((await kubectlApply(manifest(bad, GOOD), '--dry-run=server')).code).toBe(0);
    expect((await kubectlApply(manifest(updated, BROKEN), '--dry-run=server')).code).not.toBe(0);
    const post = (body: string) =>
      fetch(`${app.url}${ADMISSION_PATH}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body,
      });
    expect((await post('not json')).status).toBe(400);
    const notReview = await post(
      '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"m","operation":"DELETE"}}',
    );
    expect(notReview.status).toBe(200); // a DELETE is allowed unjudged
    const after = await samples();
    expect(after.reviews('CREATE', 'denied')).toBe(before.reviews('CREATE', 'denied') + 1);
    expect(after.reviews('CREATE', 'allowed')).toBe(before.reviews('CREATE', 'allowed') + 1);
    expect(after.reviews('UPDATE', 'denied')).toBe(before.reviews('UPDATE', 'denied') + 1);
    expect(after.reviews('unknown', 'error')).toBe(before.reviews('unknown', 'error') + 1);
    expect(after.text).toMatch(/^# TYPE nginx_admission_review_duration_seconds histogram$/m);
    const deniedDurations = (text: string) =>
      Number(
        /^nginx_admission_review_duration_seconds_count\{outcome="denied"\} (\S+)$/m.exec(text)?.[1] ?? 0,
      );
    expect(deniedDurations(after.text)).toBe(deniedDurations(before.text) + 2);
    expect(after.reviews('DELETE', 'allowed')).toBe(before.reviews('DELETE', 'allowed') + 1);
  });

  it('with the app stopped, other writes and Nginx writes still pass; the controller flags the bad config', async () => {
    await app.stop();
    const configMap = uniqueName('cm');
    await kubectl('create', 'configmap', configMap, '-n', ns, '--from-literal=key=value');
    const name = uniqueName('while-down');
    const applied = await kubectlApply(manifest(name, BROKEN));
    expect(applied.err).toBe('');
    expect(applied.code).toBe(0);
    // The backstop: once running again, the controller refuses to roll it out.
    app = await startApp({ ...HEADLESS, WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
    const flagged = await waitFor(
      'Progressing=False/InvalidConfig',
      async () => {
        const nginx = await getNginx(name);
        const progressing = nginx.status?.conditions?.find((c) => c.type === 'Progressing');
        return progressing?.reason === 'InvalidConfig' && progressing;
      },
      { timeoutMs: 60_000 },
    );
    expect(flagged.message).toMatch(/line 3/);
  });
});
