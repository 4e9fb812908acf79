import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type AppProcess } from './support/app-process.js';
import { migrate, sqliteDatabase } from './support/database.js';
import { active, createNamedNamespace, deleteNamespace, nginxesIn, running } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
// A namespace of its own, the only one its controller watches: other files run side by side.
const nginxes = nginxesIn(client, uniqueName('nginx-controller'));
const podsPath = `/api/v1/namespaces/${nginxes.namespace}/pods`;
const { converged, scale, pods: podsOf, get: getNginx } = nginxes;

describe('the Nginx controller on the local cluster', () => {
  let api: AppProcess;
  const name = uniqueName('web');

  beforeAll(async () => {
    const db = await sqliteDatabase();
    await migrate(db.url);
    await createNamedNamespace(client, nginxes.namespace, {});
    api = await startApp({
      WEB_MODE: 'off',
      DATABASE_URL: db.url,
      LEADER_ELECTION: 'false',
      WATCH_NAMESPACE: nginxes.namespace,
    });
  });
  afterAll(async () => {
    await nginxes.delete(name);
    await api?.stop();
    await deleteNamespace(client, nginxes.namespace);
    client.close();
  });

  it('creates the pods an Nginx asks for, owned by it, and reports them ready in its status', async () => {
    const started = Date.now();
    await nginxes.create(name, 3);
    await converged(name, 3);
    console.log(`3 pods Running and readyReplicas=3 after ${Date.now() - started} ms`);

    const nginx = await getNginx(name);
    for (const pod of await podsOf(name)) {
      expect(pod.metadata?.name).toMatch(new RegExp(`^${name}-[a-z0-9]{5}$`));
      expect(pod.metadata?.labels).toMatchObject({
        'app.kubernetes.io/name': 'nginx',
        'app.kubernetes.io/managed-by': 'nginx-control-plane',
      });
      expect(pod.metadata?.ownerReferences).toEqual([
        {
          apiVersion: 'mycompany.com/v1',
          kind: 'Nginx',
          name,
          uid: nginx.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ]);
      expect(pod.spec?.containers[0]).toMatchObject({
        image: 'nginx:latest',
        ports: [{ containerPort: 80, name: 'http', protocol: 'TCP' }],
      });
    }
    expect(nginx.status).toMatchObject({
      observedGeneration: nginx.metadata.generation,
      message: '3 of 3 pods ready.',
      selector: `app.kubernetes.io/name=nginx,mycompany.com/nginx=${name}`,
    });
    expect(nginx.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
  });

  it('scales up, down, to zero and back', async () => {
    await scale(name, 6);
    await converged(name, 6);
    await scale(name, 2);
    await converged(name, 2);
    await scale(name, 0);
    await converged(name, 0);
    expect((await getNginx(name)).status?.message).toBe('Scaled to 0 pods.');
    await scale(name, 3);
    await converged(name, 3);
  });

  it('replaces a pod deleted by hand', async () => {
    const [victim] = await podsOf(name);
    await client.request({ method: 'DELETE', path: `${podsPath}/${victim!.metadata!.name}` });
    await waitFor('a replacement', async () => {
      const pods = running(await podsOf(name));
      return pods.length === 3 && !pods.some((p) => p.metadata?.uid === victim!.metadata!.uid);
    });
  });

  it('replaces a pod that failed', async () => {
    const [victim] = running(await podsOf(name));
    await client.request({
      method: 'PATCH',
      path: `${podsPath}/${victim!.metadata!.name}/status`,
      contentType: 'application/merge-patch+json',
      body: { status: { phase: 'Failed', reason: 'Evicted', message: 'test' } },
    });
    await waitFor('the failed pod deleted and replaced', async () => {
      const pods = await podsOf(name);
      return running(pods).length === 3 && !pods.some((p) => p.metadata?.uid === victim!.metadata!.uid);
    });
  });

  it('releases a pod relabelled for another Nginx, replaces it, and that Nginx adopts it', async () => {
    const [moved] = running(await podsOf(name));
    const other = `${name}-b`;
    await client.request({
      method: 'PATCH',
      path: `${podsPath}/${moved!.metadata!.name}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { 'mycompany.com/nginx': other } } },
    });
    await waitFor('the pod released', async () => {
      const pod = await client.request<V1Pod>({ path: `${podsPath}/${moved!.metadata!.name}` });
      return (pod.metadata?.ownerReferences ?? []).length === 0;
    });
    await converged(name, 3);

    await nginxes.create(other, 1);
    try {
      await converged(other, 1);
      const [adopted] = active(await podsOf(other));
      expect(adopted!.metadata!.uid).toBe(moved!.metadata!.uid);
      expect(adopted!.metadata!.ownerReferences).toEqual([
        expect.objectContaining({ kind: 'Nginx', name: other, controller: true, blockOwnerDeletion: true }),
      ]);
    } finally {
      await nginxes.delete(other);
    }
  });

  it('releases a pod whose label was removed, though its own watch no longer sees it, and replaces it', async () => {
    const [stray] = running(await podsOf(name));
    const strayPath = `${podsPath}/${stray!.metadata!.name}`;
    await client.request({
      method: 'PATCH',
      path: strayPath,
      contentType: 'application/merge-patch+json',
      body: { metadata: { labels: { 'mycompany.com/nginx': null } } },
    });
    try {
      await waitFor('the unlabelled pod released', async () => {
        const pod = await client.request<V1Pod>({ path: strayPath });
        return (pod.metadata?.ownerReferences ?? []).length === 0;
      });
      await converged(name, 3);
    } finally {
      await client.request({ method: 'DELETE', path: strayPath }).catch(() => {});
    }
  });

  it('writes Events about what it did', async () => {
    const events = await nginxes.events((await getNginx(name)).metadata.uid!);
    const reasons = new Set(events.map((e) => e.reason));
    expect(reasons.has('SuccessfulCreate')).toBe(true);
    expect(reasons.has('SuccessfulDelete')).toBe(true);
  });

  it('reports readiness with its role and exports Prometheus metrics', async () => {
    const readiness = (await (await fetch(`${api.url}/readyz`)).json()) as {
      checks: { controller: unknown };
    };
    expect(readiness.checks.controller).toEqual({ ok: true, detail: 'caches synced, leading', leader: true });

    const response = await fetch(`${api.url}/metrics`);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await response.text();
    for (const metric of [
      /^workqueue_adds_total\{name="nginx"\} [1-9]/m,
      /^workqueue_depth\{name="nginx"\} \d/m,
      /^workqueue_work_duration_seconds_count\{name="nginx"\} [1-9]/m,
      /^workqueue_longest_running_processor_seconds\{name="nginx"\}/m,
      /^nginx_reconciles_total\{result="success"\} [1-9]/m,
      /^nginx_pods_created_total [1-9]/m,
      /^nginx_pods_deleted_total\{reason="scale-down"\} [1-9]/m,
      /^reflector_lists_total\{resource="pods",how="(streaming|list)"\} [1-9]/m,
      /^nginx_controller_leader 1/m,
      /^nginx_audit_records_written_total [1-9]/m,
      /^nginx_audit_queue_depth \d/m,
      /^nginx_audit_records_dropped_total 0/m,
      /^process_resident_memory_bytes /m,
    ]) {
      expect(text).toMatch(metric);
    }
  });

  it('leaves the pods to the garbage collector when the Nginx is deleted', async () => {
    await client.request({
      method: 'DELETE',
      path: `/apis/mycompany.com/v1/namespaces/${nginxes.namespace}/nginxes/${name}`,
    });
    await waitFor('its pods gone', async () => (await podsOf(name)).length === 0, { timeoutMs: 45_000 });
  });
});
