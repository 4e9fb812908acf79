// npm run bench:quota [-- --quick] — reports, never asserts. Needs the local cluster.
// A ResourceQuota that admits 1 pod, and an object asking for 3: how many pod creations each controller has refused
// per minute (ours next to kube-controller-manager's ReplicaSet controller, in the same run, on the same cluster),
// then how long after the quota is raised each has all 3 pods ready.
// Writes bench/results/quota.{md,json}.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEADLESS, startApp } from '../test/support/app-process.js';
import { migrate } from '../test/support/database.js';
import { createNamespace, createPodQuota } from '../test/support/operations.js';
import { runtimeClient } from '../test/support/runtime.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { podCreatesByCode } from '../test/support/apiserver-metrics.js';
import { NGINX, REPLICA_SET, type WorkloadKind } from './convergence/workload.js';
import { runStamp, writeResults } from './results-file.js';

const QUICK = process.argv.includes('--quick');
const WINDOW_SECONDS = Number(process.env.BENCH_QUOTA_SECONDS ?? (QUICK ? 30 : 120));
const REPLICAS = 3;
const client = runtimeClient({ qps: 1000, burst: 1000 });

interface Result {
  controller: string;
  /** Refused creations (403) in each minute of the window, then in all of it. */
  refusedPerMinute: number[];
  refused: number;
  admitted: number;
  /** From raising the quota to all replicas ready, per the object's status. */
  convergedAfterRaiseSeconds: number;
}

/** A namespace of its own whose ResourceQuota admits 1 pod, once the quota controller counts its usage. */
async function quotaNamespace(what: string): Promise<string> {
  const namespace = await createNamespace(client, `bench-quota-${what}`);
  await createPodQuota(client, namespace, 1);
  return namespace;
}

async function measure(kind: WorkloadKind, namespace: string): Promise<Omit<Result, 'controller'>> {
  const collection = kind.collection(namespace);
  const before = await podCreatesByCode();
  await client.request({ method: 'POST', path: collection, body: kind.manifest('refused', REPLICAS) });
  const refusedPerMinute: number[] = [];
  let last = before;
  for (let elapsed = 0; elapsed < WINDOW_SECONDS; elapsed += 60) {
    await sleep(Math.min(60, WINDOW_SECONDS - elapsed) * 1000);
    const now = await podCreatesByCode();
    refusedPerMinute.push((now.get('403') ?? 0) - (last.get('403') ?? 0));
    last = now;
  }
  await client.request({
    method: 'PATCH',
    path: `/api/v1/namespaces/${namespace}/resourcequotas/pods`,
    contentType: 'application/merge-patch+json',
    body: { spec: { hard: { pods: '10' } } },
  });
  const raisedAt = performance.now();
  await waitFor(
    `${REPLICAS} ready in ${namespace}`,
    async () =>
      (await client.request<{ status?: { readyReplicas?: number } }>({ path: `${collection}/refused` }))
        .status?.readyReplicas === REPLICAS,
    { timeoutMs: 1_200_000 },
  );
  const convergedAfterRaiseSeconds = (performance.now() - raisedAt) / 1000;
  const after = await podCreatesByCode();
  return {
    refusedPerMinute,
    refused: (last.get('403') ?? 0) - (before.get('403') ?? 0),
    admitted: (after.get('201') ?? 0) - (before.get('201') ?? 0),
    convergedAfterRaiseSeconds,
  };
}

async function ours(): Promise<Result> {
  const namespace = await quotaNamespace('ngx');
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), 'ngx-bench-')), 'audit.db')}`;
  await migrate(databaseUrl);
  const controller = await startApp({
    ...HEADLESS,
    WATCH_NAMESPACE: namespace,
    LEADER_ELECTION: 'false',
    INSTALL_CRD: 'false',
    DATABASE_URL: databaseUrl,
  });
  try {
    await waitFor('synced caches', async () => (await controller.readiness()).checks.controller.ok, {
      timeoutMs: 30_000,
    });
    return { controller: 'Nginx controller (ours)', ...(await measure(NGINX, namespace)) };
  } finally {
    await controller.terminate();
    await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
  }
}

async function replicaSets(): Promise<Result> {
  const namespace = await quotaNamespace('rs');
  try {
    return {
      controller: 'ReplicaSet controller (kube-controller-manager)',
      ...(await measure(REPLICA_SET, namespace)),
    };
  } finally {
    await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
  }
}

async function main(): Promise<void> {
  const version = await client.request<{ gitVersion: string }>({ path: '/version' });
  const stamp = runStamp(version.gitVersion);
  const results: Result[] = [];
  try {
    results.push(await ours());
    console.log(`ours: ${JSON.stringify(results.at(-1))}`);
    results.push(await replicaSets());
    console.log(`ReplicaSets: ${JSON.stringify(results.at(-1))}`);
  } finally {
    client.close();
  }
  const minutes = Math.ceil(WINDOW_SECONDS / 60);
  const markdown = [
    '# Under a refusing quota: our Nginx controller next to the ReplicaSet controller',
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}: Kubernetes ${stamp.kubernetes} (local control plane, kwok nodes), ` +
      `Node.js ${process.version}. A ResourceQuota admits 1 pod; the object asks for ${REPLICAS}. For ` +
      `${WINDOW_SECONDS} s every refused pod creation (HTTP 403, from kube-apiserver's apiserver_request_total) is ` +
      'counted; then the quota is raised to 10 and the time until the object reports all replicas ready is taken. ' +
      'Both controllers run with their default client limits.',
    '',
    `| controller | ${Array.from({ length: minutes }, (_, i) => `refused, minute ${i + 1}`).join(' | ')} | refused in all | admitted | ready after the raise |`,
    `| --- | ${Array.from({ length: minutes }, () => '---:').join(' | ')} | ---: | ---: | ---: |`,
    ...results.map(
      (r) =>
        `| ${r.controller} | ${r.refusedPerMinute.join(' | ')} | ${r.refused} | ${r.admitted} | ${r.convergedAfterRaiseSeconds.toFixed(1)} s |`,
    ),
    '',
    'Both retry a failing object with per-item exponential backoff (5 ms doubling, capped at 1000 s) and keep ' +
      'the ReplicaFailure message stable, so a refusal does not wake them again. Ours also watches ResourceQuotas: ' +
      'a quota that may admit the refused pods now wakes the objects it refused at once; the ReplicaSet ' +
      'controller waits out its backoff.',
    '',
  ].join('\n');
  writeResults('quota', markdown, { ...stamp, windowSeconds: WINDOW_SECONDS, results });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
