// npm run bench:convergence [-- --quick | --large] — reports, never asserts. Needs the local cluster.
// Our Nginx controller next to kube-controller-manager's ReplicaSet controller on the same cluster, in the same
// run: N objects × R replicas created (timed until every status.readyReplicas == R), scaled to R/2, deleted;
// first with the same client QPS/burst for both, then with both unthrottled. Also: the limit (pods created
// directly by a tight client), the API requests and writes per pod each controller caused, its CPU and memory,
// an idle stretch with the pods in place, and our convergence with the audit trail on and off.
// Writes bench/results/convergence.{md,json,svg}.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPid } from '../test/support/cluster-processes.js';
import { HEADLESS, startApp, type AppProcess } from '../test/support/app-process.js';
import { migrate } from '../test/support/database.js';
import { runtimeClient } from '../test/support/runtime.js';
import { requestCounts } from './convergence/apiserver-metrics.js';
import { restartComponents } from './convergence/cluster-components.js';
import { peakRssMb } from './convergence/process-stats.js';
import { readyChart } from './convergence/svg-chart.js';
import { RESULTS_DIR, runStamp, writeResults } from './results-file.js';
import {
  NGINX,
  REPLICA_SET,
  directPods,
  runWorkload,
  type PhaseResult,
  type WorkloadKind,
} from './convergence/workload.js';
import { sleep } from '../test/support/wait.js';

const QUICK = process.argv.includes('--quick');
const LARGE = process.argv.includes('--large');
const COUNT = Number(process.env.BENCH_COUNT ?? (QUICK ? 20 : LARGE ? 500 : 100));
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? (QUICK ? 4 : 10));
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? (QUICK ? 15 : 60));
/** Our controller's defaults, given to kube-controller-manager too for the equal-limits runs. */
const EQUAL = { qps: 50, burst: 100 };
const UNTHROTTLED = { qps: 100_000, burst: 100_000 };

const client = runtimeClient({ qps: 5000, burst: 5000 });
const run = `${Date.now().toString(36)}`;
let ns = 0;
/** Deletes a namespace and waits until it is gone, so its clean-up does not land in the next run's figures. */
async function deleteNamespace(namespace: string): Promise<void> {
  await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
  for (let i = 0; i < 600; i++) {
    try {
      await client.request({ path: `/api/v1/namespaces/${namespace}` });
    } catch {
      return;
    }
    await sleep(250);
  }
}

/**
 * Waits until the cluster is quiet (kube-apiserver serving under 30 requests a second over 3 s), so what the
 * previous run left to clean up is not counted in the next.
 */
async function quiet(): Promise<void> {
  const total = async () => [...(await requestCounts()).values()].reduce((a, b) => a + b, 0);
  for (let i = 0; i < 40; i++) {
    const before = await total();
    await sleep(3000);
    if ((await total()) - before < 90) return;
  }
}

const namespaceFor = async (what: string) => {
  await quiet();
  const name = `bench-${what}-${run}-${ns++}`;
  await client.request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name } } });
  await waitForDefaultServiceAccount(name);
  return name;
};

async function waitForDefaultServiceAccount(namespace: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    try {
      await client.request({ path: `/api/v1/namespaces/${namespace}/serviceaccounts/default` });
      return;
    } catch {
      await sleep(100);
    }
  }
}

const limitsEnv = (limits: { qps: number; burst: number }) => ({
  CLUSTER_KCM_QPS: String(limits.qps),
  CLUSTER_KCM_BURST: String(limits.burst),
  // The scheduler binds every pod; it must not be what both controllers wait for.
  CLUSTER_SCHEDULER_QPS: '5000',
  CLUSTER_SCHEDULER_BURST: '5000',
});

interface Run {
  controller: string;
  limits: string;
  audit?: boolean;
  phases: PhaseResult[];
  peakRssMb: number;
  readyOverTime: [number, number][];
}

async function ours(limits: { qps: number; burst: number }, label: string, audit = true): Promise<Run> {
  const namespace = await namespaceFor('ngx');
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), 'ngx-bench-')), 'audit.db')}`;
  await migrate(databaseUrl);
  const controller: AppProcess = await startApp({
    ...HEADLESS,
    WATCH_NAMESPACE: namespace,
    LEADER_ELECTION: 'false',
    INSTALL_CRD: 'false',
    LOG_FORMAT: 'json',
    AUDIT: String(audit),
    DATABASE_URL: databaseUrl,
    KUBE_API_QPS: String(limits.qps),
    KUBE_API_BURST: String(limits.burst),
  });
  try {
    const result = await runWorkload({
      client,
      kind: NGINX,
      namespace,
      count: COUNT,
      replicas: REPLICAS,
      pid: () => controller.pid,
      idleSeconds: audit && label === 'equal' ? IDLE_SECONDS : 0,
    });
    return {
      controller: 'Nginx controller (ours)',
      limits: label,
      audit,
      ...result,
      peakRssMb: peakRssMb(controller.pid),
    };
  } finally {
    await controller.terminate();
    await deleteNamespace(namespace);
  }
}

async function replicaSets(limits: { qps: number; burst: number }, label: string): Promise<Run> {
  await restartComponents(['kube-controller-manager'], limitsEnv(limits));
  const namespace = await namespaceFor('rs');
  try {
    const result = await runWorkload({
      client,
      kind: REPLICA_SET as WorkloadKind,
      namespace,
      count: COUNT,
      replicas: REPLICAS,
      pid: () => readPid('kube-controller-manager'),
      idleSeconds: label === 'equal' ? IDLE_SECONDS : 0,
    });
    return {
      controller: 'ReplicaSet controller (kube-controller-manager)',
      limits: label,
      ...result,
      peakRssMb: peakRssMb(readPid('kube-controller-manager')),
    };
  } finally {
    await deleteNamespace(namespace);
  }
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);

function table(runs: Run[], limitSeconds: number): string {
  const rows = [
    '| controller | client limits | phase | seconds | % of the limit | writes | writes per pod created | events | reads | CPU s | peak RSS MiB |',
    '| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const run of runs)
    for (const phase of run.phases) {
      const perPod = phase.podsCreated > 0 ? fmt(phase.writes / phase.podsCreated, 2) : '';
      const ofLimit = phase.phase === 'create' ? `${fmt((limitSeconds / phase.seconds) * 100, 0)}%` : '';
      rows.push(
        `| ${run.controller}${run.audit === false ? ', audit off' : ''} | ${run.limits} | ${phase.phase} | ${fmt(phase.seconds)} | ` +
          `${ofLimit} | ${phase.writes} | ${perPod} | ${phase.events} | ${phase.reads} | ${fmt(phase.cpuSeconds, 2)} | ${fmt(run.peakRssMb, 0)} |`,
      );
    }
  return rows.join('\n');
}

async function main(): Promise<void> {
  const version = await client.request<{ gitVersion: string }>({ path: '/version' });
  const stamp = runStamp(version.gitVersion);
  const pods = COUNT * REPLICAS;
  console.log(
    `${COUNT} objects × ${REPLICAS} replicas = ${pods} pods per run; Kubernetes ${version.gitVersion}`,
  );
  const runs: Run[] = [];
  let limitSeconds = 0;
  try {
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], limitsEnv(EQUAL));
    await sleep(5000); // the restarted scheduler's caches

    for (const [limits, label] of [
      [EQUAL, 'equal'],
      [UNTHROTTLED, 'unthrottled'],
    ] as const) {
      runs.push(await ours(limits, label));
      console.log(
        `ours, ${label}: ${runs
          .at(-1)!
          .phases.map((p) => `${p.phase} ${fmt(p.seconds)} s`)
          .join(', ')}`,
      );
      runs.push(await replicaSets(limits, label));
      console.log(
        `ReplicaSets, ${label}: ${runs
          .at(-1)!
          .phases.map((p) => `${p.phase} ${fmt(p.seconds)} s`)
          .join(', ')}`,
      );
    }
    runs.push(await ours(EQUAL, 'equal', false));
    console.log(
      `ours, audit off: ${runs
        .at(-1)!
        .phases.map((p) => `${p.phase} ${fmt(p.seconds)} s`)
        .join(', ')}`,
    );

    const limitNamespace = await namespaceFor('limit');
    limitSeconds = await directPods(client, limitNamespace, pods);
    console.log(`limit: ${pods} pods created directly and ready in ${fmt(limitSeconds)} s`);
    await deleteNamespace(limitNamespace);
  } finally {
    // Back to the cluster's own defaults.
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], {});
    client.close();
  }

  const create = (r: Run | undefined) => r?.phases.find((p) => p.phase === 'create')?.seconds ?? NaN;
  const auditOn = create(runs.find((r) => r.controller.includes('ours') && r.limits === 'equal' && r.audit));
  const auditOff = create(runs.find((r) => r.audit === false));
  const markdown = [
    `# Convergence: our Nginx controller next to the ReplicaSet controller`,
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}: Kubernetes ${stamp.kubernetes} (local control plane, kwok nodes), ` +
      `Node.js ${process.version}, ${COUNT} objects × ${REPLICAS} replicas (${pods} pods) per run. "equal" gives ` +
      `kube-controller-manager our defaults (--kube-api-qps=${EQUAL.qps} --kube-api-burst=${EQUAL.burst}); ` +
      `"unthrottled" lifts both limits. The scheduler runs with a high limit in every run so it is not the bottleneck.`,
    '',
    `The limit — ${pods} pods created directly by a client with 64 requests in flight, until all ready: **${fmt(limitSeconds)} s**. ` +
      '"% of the limit" is that time over the phase\'s (100% = as fast as pods can be made here).',
    '',
    table(runs, limitSeconds),
    '',
    `Requests are what kube-apiserver counted during the phase: writes are pod creations, deletions and patches and ` +
      `status writes of the controller's kind (not the objects the benchmark itself creates, scales and deletes, nor ` +
      `kwok's pod status updates); events are Events written, the scheduler's included (kube-apiserver cannot tell ` +
      `writers apart); reads are gets, lists and watches of pods and of the kind. The idle row is ${IDLE_SECONDS} s ` +
      `with the pods in place. Each run has a namespace of its own, deleted and gone before the next run starts.`,
    '',
    `Audit overhead: create phase ${fmt(auditOn)} s with the audit trail, ${fmt(auditOff)} s without ` +
      `(${fmt(((auditOn - auditOff) / auditOff) * 100)}%).`,
    '',
    '![pods ready over time](convergence.svg)',
    '',
  ].join('\n');
  writeResults('convergence', markdown, {
    ...stamp,
    count: COUNT,
    replicas: REPLICAS,
    limitSeconds,
    runs,
  });
  const equalRuns = runs.filter((r) => r.limits === 'equal' && r.audit !== false);
  writeFileSync(
    join(RESULTS_DIR, 'convergence.svg'),
    readyChart(
      `${pods} pods ready over time, equal client limits (${EQUAL.qps} qps, burst ${EQUAL.burst})`,
      equalRuns.map((r, i) => ({
        label: r.controller,
        color: i === 0 ? '#0969da' : '#cf222e',
        points: r.readyOverTime,
      })),
      pods,
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
