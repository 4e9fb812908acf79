// spec.tls and spec.ingress on the local cluster: a missing Secret is ReplicaFailure/SecretNotFound with no pod
// created while the controller keeps looking, and creating it brings the pods; a Secret deleted under running pods
// is reported (the pods kept) and cleared once it is back; the pods mount the Secret and expose
// 443; the owned Ingress follows the spec (host, class, TLS, backend), its drift is corrected, it is deleted with
// spec.ingress and garbage-collected with the Nginx (kube-controller-manager's garbage collector).
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { V1ConfigMap, V1Ingress, V1Service } from '@kubernetes/client-node';
import { isNotFound } from '../libs/kube-runtime/src/index.js';
import type { Nginx } from '../libs/nginx-api/src/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { active, createNamespace, nginxesIn, podRecorder } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { staysTrue, uniqueName, waitFor } from './support/wait.js';

const run = promisify(execFile);
const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const MERGE_PATCH = 'application/merge-patch+json';

/** A kubernetes.io/tls Secret's data: a real self-signed certificate and its key from openssl. */
async function selfSigned(host: string): Promise<Record<string, string>> {
  const dir = mkdtempSync(join(tmpdir(), 'ngx-tls-'));
  try {
    await run('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', `/CN=${host}`,
      '-keyout', join(dir, 'tls.key'), '-out', join(dir, 'tls.crt'),
    ]); // prettier-ignore
    const read = (file: string) => readFileSync(join(dir, file)).toString('base64');
    return { 'tls.crt': read('tls.crt'), 'tls.key': read('tls.key') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The sum of a counter's samples in the app's /metrics (every label set). */
async function counter(app: AppProcess, name: string): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

describe('spec.tls and spec.ingress', () => {
  let controller: AppProcess;
  let namespace: string;
  let tlsData: Record<string, string>;
  const nginxPath = (name = '') =>
    `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes${name && `/${name}`}`;
  const ingressPath = (name: string) =>
    `/apis/networking.k8s.io/v1/namespaces/${namespace}/ingresses/${name}`;
  const ingressOf = async (name: string) => {
    try {
      return await client.request<V1Ingress>({ path: ingressPath(name) });
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  };
  const createSecret = (name: string) =>
    client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${namespace}/secrets`,
      body: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        type: 'kubernetes.io/tls',
        data: tlsData,
      },
    });
  const createNginx = (name: string, spec: Nginx['spec']) =>
    client.request({
      method: 'POST',
      path: nginxPath(),
      body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name }, spec },
    });
  const patchSpec = (name: string, spec: Record<string, unknown>) =>
    client.request({ method: 'PATCH', path: nginxPath(name), contentType: MERGE_PATCH, body: { spec } });

  beforeAll(async () => {
    namespace = await createNamespace(client, 'tls', cleanups);
    tlsData = await selfSigned('web.example.com');
    controller = await startApp({
      ...HEADLESS,
      LEADER_ELECTION: 'false',
      WATCH_NAMESPACE: namespace,
      // A settled TLS Nginx looks for its Secret every 2 s here (60 s by default).
      TLS_SECRET_RECHECK_SECONDS: '2',
    });
  });
  afterAll(async () => {
    await controller?.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    client.close();
  });

  // First, while nothing else in the namespace makes the controller reconcile: its reconciles are this Nginx's.
  it('reports a missing Secret as ReplicaFailure/SecretNotFound, creates no pod while it looks again, and recovers once it exists', async () => {
    const nginxes = nginxesIn(client, namespace);
    const name = uniqueName('nosecret');
    const secret = uniqueName('later-tls');
    const pods = await podRecorder(client, namespace, `mycompany.com/nginx=${name}`);
    cleanups.push(() => pods.stop());
    await createNginx(name, { replicas: 2, tls: { secretName: secret } });
    const failure = await waitFor('a SecretNotFound condition', async () => {
      const nginx = await nginxes.get(name);
      const condition = nginx.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
      return condition?.status === 'True' && condition;
    });
    expect(failure.reason).toBe('SecretNotFound');
    expect(failure.message).toBe(
      `Secret ${secret} (spec.tls.secretName) not found in namespace ${namespace}: no pod is created until it exists.`,
    );

    // Several more looks (one every 10 s): still no pod asked for, the condition still says why, the app up.
    const reconciles = await counter(controller, 'nginx_reconciles_total');
    await waitFor(
      'three more reconciles',
      async () => (await counter(controller, 'nginx_reconciles_total')) >= reconciles + 3,
      { timeoutMs: 90_000, intervalMs: 1000 },
    );
    expect(pods.seen.size).toBe(0);
    expect(await counter(controller, 'nginx_pods_created_total')).toBe(0);
    expect(await counter(controller, 'nginx_pod_create_failures_total')).toBe(0);
    const still = (await nginxes.get(name)).status?.conditions?.find((c) => c.type === 'ReplicaFailure');
    expect(still).toMatchObject({ status: 'True', reason: 'SecretNotFound', message: failure.message });
    expect(controller.exited()).toBeUndefined();
    const uid = (await nginxes.get(name)).metadata.uid!;
    const warning = await waitFor('a SecretNotFound Warning Event', async () =>
      (await nginxes.events(uid)).find((e) => e.reason === 'SecretNotFound'),
    );
    expect(warning).toMatchObject({ type: 'Warning', message: failure.message });

    await createSecret(secret);
    const recovered = await nginxes.converged(name, 2, 60_000);
    expect(recovered.status?.conditions?.find((c) => c.type === 'ReplicaFailure')).toBeUndefined();
    expect(pods.seen.size).toBe(2);
  }, 240_000);

  it('notices a Secret deleted under running pods (the pods kept, one Warning), and clears once it is back', async () => {
    const nginxes = nginxesIn(client, namespace);
    const name = uniqueName('deleted');
    const secret = uniqueName('deleted-tls');
    await createSecret(secret);
    await createNginx(name, { replicas: 2, tls: { secretName: secret } });
    await nginxes.converged(name, 2, 60_000);
    const uids = async () =>
      active(await nginxes.pods(name))
        .map((pod) => pod.metadata!.uid!)
        .sort();
    const running = await uids();
    expect(running).toHaveLength(2);
    const uid = (await nginxes.get(name)).metadata.uid!;
    const warnings = async () =>
      (await nginxes.events(uid)).filter((e) => e.type === 'Warning' && e.reason === 'SecretNotFound');
    expect(await warnings()).toHaveLength(0);

    await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}/secrets/${secret}` });
    const failure = await waitFor(
      'SecretNotFound on the settled Nginx',
      async () => {
        const condition = (await nginxes.get(name)).status?.conditions?.find(
          (c) => c.type === 'ReplicaFailure',
        );
        return condition?.status === 'True' && condition;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(failure.reason).toBe('SecretNotFound');
    expect(failure.message).toBe(
      `Secret ${secret} (spec.tls.secretName) not found in namespace ${namespace}: the 2 running pods keep the ` +
        'certificate they mounted; no new pod is created until it exists.',
    );
    // Several more looks (every 10 s while it is missing): the same pods, and one Warning only, all along.
    const samePods = (now: string[]) =>
      now.length === running.length && now.every((u, i) => u === running[i]);
    await staysTrue(
      'the same 2 pods and one SecretNotFound Warning',
      async () => samePods(await uids()) && (await warnings()).length <= 1,
      22_000,
      { intervalMs: 1_000 },
    );
    expect(await uids()).toEqual(running);
    const warned = await warnings();
    expect(warned).toHaveLength(1);
    expect(warned[0]).toMatchObject({ message: failure.message });
    expect(warned[0]!.count ?? 1).toBe(1);

    await createSecret(secret);
    await waitFor(
      'the condition cleared',
      async () =>
        (await nginxes.get(name)).status?.conditions?.find((c) => c.type === 'ReplicaFailure') === undefined,
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(await uids()).toEqual(running);
    expect(await warnings()).toHaveLength(1);
  }, 180_000);

  it('mounts the Secret in every pod, serves 443, and keeps an Ingress that follows the spec', async () => {
    const nginxes = nginxesIn(client, namespace);
    const name = uniqueName('web');
    const secret = uniqueName('web-tls');
    await createSecret(secret);
    await createNginx(name, {
      replicas: 2,
      port: 8080,
      service: { port: 8080 },
      tls: { secretName: secret },
      ingress: { className: 'nginx', host: 'web.example.com', tls: true },
    });
    const nginx = await nginxes.converged(name, 2);

    // The pods: the Secret mounted (not optional), 443 exposed, and the TLS wrapper beside the server config.
    const pods = active(await nginxes.pods(name));
    expect(pods).toHaveLength(2);
    for (const pod of pods) {
      const container = pod.spec!.containers[0]!;
      expect(container.ports).toContainEqual(expect.objectContaining({ name: 'https', containerPort: 443 }));
      expect(container.volumeMounts).toContainEqual(
        expect.objectContaining({ name: 'nginx-tls', mountPath: '/etc/nginx/tls', readOnly: true }),
      );
      expect(pod.spec!.volumes).toContainEqual(
        expect.objectContaining({
          name: 'nginx-tls',
          secret: expect.objectContaining({ secretName: secret, optional: false }),
        }),
      );
    }
    const configMapName = pods[0]!.spec!.volumes!.find((v) => v.name === 'nginx-config')!.configMap!.name!;
    const configMap = await client.request<V1ConfigMap>({
      path: `/api/v1/namespaces/${namespace}/configmaps/${configMapName}`,
    });
    expect(Object.keys(configMap.data!).sort()).toEqual(['default.conf', 'tls.conf']);
    expect(configMap.data!['tls.conf']).toContain('listen 443 ssl;');
    expect(configMap.data!['tls.conf']).toContain('proxy_pass http://127.0.0.1:8080;');

    // The Ingress: owned, host and class, TLS from the Secret, to the owned Service's port.
    const ingress = await waitFor('the Ingress', () => ingressOf(name));
    expect(ingress.metadata!.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'Nginx', name, uid: nginx.metadata.uid, controller: true }),
    ]);
    expect(ingress.spec).toMatchObject({
      ingressClassName: 'nginx',
      rules: [
        {
          host: 'web.example.com',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name, port: { number: 8080 } } },
              },
            ],
          },
        },
      ],
      tls: [{ hosts: ['web.example.com'], secretName: secret }],
    });
    await waitFor('status.ingress', async () => (await nginxes.get(name)).status?.ingress?.name === name);
    const service = await client.request<V1Service>({
      path: `/api/v1/namespaces/${namespace}/services/${name}`,
    });
    expect(
      service.spec!.ports!.map(({ name: port, port: number, targetPort }) => [port, number, targetPort]),
    ).toEqual([
      ['http', 8080, 8080],
      ['https', 443, 443],
    ]);

    // A new host: the Ingress follows (a merge patch of its spec, not a new object).
    await patchSpec(name, { ingress: { host: 'shop.example.com', tls: false } });
    const moved = await waitFor('the Ingress on the new host', async () => {
      const current = await ingressOf(name);
      return current?.spec?.rules?.[0]?.host === 'shop.example.com' && current;
    });
    expect(moved.metadata!.uid).toBe(ingress.metadata!.uid);
    expect(moved.spec!.tls).toBeUndefined();
    expect(moved.spec!.ingressClassName).toBe('nginx');

    // Drift written by someone else is corrected.
    await client.request({
      method: 'PATCH',
      path: ingressPath(name),
      contentType: MERGE_PATCH,
      body: { spec: { rules: [{ host: 'drift.example.com' }] } },
    });
    await waitFor('the drift corrected', async () => {
      const current = await ingressOf(name);
      return (
        current?.spec?.rules?.[0]?.host === 'shop.example.com' && current.spec.rules[0]!.http !== undefined
      );
    });

    // spec.ingress removed: the Ingress is deleted and the status no longer names it.
    await patchSpec(name, { ingress: null });
    await waitFor('the Ingress deleted', async () => (await ingressOf(name)) === undefined);
    await waitFor('status.ingress gone', async () => (await nginxes.get(name)).status?.ingress === undefined);
    expect((await nginxes.get(name)).status?.service?.name).toBe(name);
  }, 120_000);

  it('has the Ingress garbage-collected with the Nginx', async () => {
    const name = uniqueName('gc');
    await createNginx(name, { replicas: 0, service: {}, ingress: { host: '*.example.com' } });
    const ingress = await waitFor('the Ingress', () => ingressOf(name));
    expect(ingress.spec!.rules![0]!.host).toBe('*.example.com');
    await client.request({ method: 'DELETE', path: nginxPath(name) });
    await waitFor('the Ingress garbage-collected', async () => (await ingressOf(name)) === undefined, {
      timeoutMs: 60_000,
    });
  }, 120_000);
});
