// The standard metrics next to what users' dashboards already read: our workqueue_* and rest_client_* against
// kube-controller-manager's own /metrics on the local cluster (client-go's names, types, labels and buckets, compared
// family by family), controller-runtime's controller_runtime_* and client-go's leader_election_master_status, and
// the per-Nginx rollout gauges (one series per Nginx, gone with it).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECONCILE_TIME_BUCKETS } from '../apps/api/src/metrics/controller-runtime-metrics.js';
import { startApp, type AppProcess } from './support/app-process.js';
import { migrate, sqliteDatabase } from './support/database.js';
import { createNamedNamespace, deleteNamespace, nginxesIn } from './support/operations.js';
import { CLUSTER_DIR } from './support/paths.js';
import { parsePrometheusText, type MetricFamily } from './support/prometheus-text.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const nginxes = nginxesIn(client, uniqueName('standard-metrics'));
const ns = nginxes.namespace;

/** client-go's families that kube-controller-manager exports too. */
const CLIENT_GO_FAMILIES = [
  'workqueue_adds_total',
  'workqueue_depth',
  'workqueue_queue_duration_seconds',
  'workqueue_work_duration_seconds',
  'workqueue_retries_total',
  'workqueue_unfinished_work_seconds',
  'workqueue_longest_running_processor_seconds',
  'rest_client_requests_total',
  'rest_client_request_duration_seconds',
];

/** kube-controller-manager's /metrics, asked with the cluster admin's certificate (its serving certificate is self-signed). */
async function kubeControllerManagerMetrics(): Promise<string> {
  const pki = join(CLUSTER_DIR, 'pki');
  const dispatcher = new Agent({
    connect: {
      cert: readFileSync(join(pki, 'admin.crt')),
      key: readFileSync(join(pki, 'admin.key')),
      rejectUnauthorized: false,
    },
  });
  try {
    const response = await request(`https://127.0.0.1:${process.env.CLUSTER_KCM_PORT ?? '10257'}/metrics`, {
      dispatcher,
    });
    expect(response.statusCode).toBe(200);
    return await response.body.text();
  } finally {
    await dispatcher.close();
  }
}

const shape = (family: MetricFamily | undefined) =>
  family && { type: family.type, labels: family.labels, buckets: family.buckets };

let app: AppProcess;
const scrape = async () => parsePrometheusText(await (await fetch(`${app.url}/metrics`)).text());
const value = (families: Map<string, MetricFamily>, name: string, labels: Record<string, string>) =>
  families
    .get(name)
    ?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value;

beforeAll(async () => {
  const db = await sqliteDatabase();
  await migrate(db.url);
  await createNamedNamespace(client, ns, {});
  app = await startApp({
    WEB_MODE: 'off',
    DATABASE_URL: db.url,
    WATCH_NAMESPACE: ns,
    LEASE_NAMESPACE: ns,
  });
  await nginxes.create('web', 2);
  await nginxes.converged('web', 2);
});
afterAll(async () => {
  await app?.stop();
  await deleteNamespace(client, ns);
  client.close();
});

describe('the standard metrics', () => {
  it("exports client-go's workqueue_* and rest_client_* with kube-controller-manager's types, labels and buckets", async () => {
    const [ours, theirs] = [await scrape(), parsePrometheusText(await kubeControllerManagerMetrics())];
    for (const name of CLIENT_GO_FAMILIES) {
      expect(theirs.get(name), `kube-controller-manager exports ${name}`).toBeDefined();
      expect(shape(ours.get(name)), name).toEqual(shape(theirs.get(name)));
    }
    const host = new URL(`https://127.0.0.1:${process.env.CLUSTER_API_PORT ?? '6443'}`).host;
    expect(
      value(ours, 'rest_client_requests_total', { code: '201', method: 'POST', host }),
    ).toBeGreaterThanOrEqual(2);
    expect(value(ours, 'workqueue_adds_total', { name: 'nginx' })).toBeGreaterThanOrEqual(1);
  });

  it("exports controller-runtime's reconcile metrics and client-go's leader_election_master_status", async () => {
    const ours = await scrape();
    const controller = { controller: 'nginx' };
    for (const result of ['error', 'requeue_after', 'requeue', 'success'])
      expect(
        value(ours, 'controller_runtime_reconcile_total', { ...controller, result }),
        result,
      ).toBeDefined();
    expect(
      value(ours, 'controller_runtime_reconcile_total', { ...controller, result: 'success' }),
    ).toBeGreaterThan(0);
    expect(shape(ours.get('controller_runtime_reconcile_total'))).toEqual({
      type: 'counter',
      labels: ['controller', 'result'],
      buckets: [],
    });
    expect(shape(ours.get('controller_runtime_reconcile_errors_total'))).toMatchObject({
      labels: ['controller'],
    });
    expect(shape(ours.get('controller_runtime_reconcile_time_seconds'))).toEqual({
      type: 'histogram',
      labels: ['controller'],
      buckets: RECONCILE_TIME_BUCKETS,
    });
    expect(value(ours, 'controller_runtime_max_concurrent_reconciles', controller)).toBeGreaterThan(0);
    expect(value(ours, 'controller_runtime_active_workers', controller)).toBeDefined();
    expect(value(ours, 'leader_election_master_status', { name: 'nginx-controller' })).toBe(1);
  });

  it('holds one rollout series per Nginx, and drops them with the Nginx', async () => {
    expect(
      value(await scrape(), 'nginx_rollout_phase', { namespace: ns, name: 'web', phase: 'ReplicasReady' }),
    ).toBe(1);
    await nginxes.delete('web');
    await waitFor('the deleted Nginx’s series gone', async () =>
      (await scrape()).get('nginx_rollout_phase')!.samples.every((s) => s.labels.namespace !== ns),
    );
  });
});
