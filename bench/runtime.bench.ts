// npm run bench:runtime — reports, never asserts. Needs the local cluster (npm run cluster:up).
//   1. workqueue throughput next to a bare de-duplicating FIFO;
//   2. informer initial sync time and process RSS for N pods, ours with and without the managedFields transform,
//      next to @kubernetes/client-node's makeInformer on the same pods, each in its own process.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { V1Pod } from '@kubernetes/client-node';
import { KUBECONFIG_PATH, ROOT } from '../test/support/paths.js';
import { runtimeClient } from '../test/support/runtime.js';
import { createObjects } from './cluster-fixtures.js';
import { runWorkqueueBench } from './workqueue.bench.js';

const PODS = Number(process.env.BENCH_PODS ?? 10_000);
const NAMESPACE = 'bench-informer';
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

async function ensurePods(): Promise<void> {
  const client = runtimeClient({ qps: 2000, burst: 2000 });
  const existing = await client
    .request<{ items: V1Pod[] }>({ path: `/api/v1/namespaces/${NAMESPACE}/pods` })
    .catch(() => ({ items: [] as V1Pod[] }));
  const count = existing.items.filter((pod) => !pod.metadata?.deletionTimestamp).length;
  if (count < PODS) {
    console.log(
      `creating ${fmt(PODS - count)} pods in ${NAMESPACE} (unschedulable by design, so they stay put)…`,
    );
    const ms = await createObjects(
      client,
      NAMESPACE,
      `/api/v1/namespaces/${NAMESPACE}/pods`,
      PODS,
      (i) => ({
        metadata: { name: `bench-${i}`, labels: { app: 'bench', index: String(i) } },
        spec: {
          // No scheduler by that name: they stay Pending, untouched by the scheduler (which would otherwise retry
          // 10,000 unschedulable pods on every cluster change, and load every other benchmark), kwok and the pod
          // garbage collector.
          schedulerName: 'bench-no-scheduler',
          containers: [{ name: 'nginx', image: 'nginx:latest', ports: [{ containerPort: 80 }] }],
        },
      }),
      64,
    );
    console.log(`  created in ${(ms / 1000).toFixed(1)} s`);
  }
  client.close();
}

function informerRun(variant: string, nodeFlags: readonly string[]) {
  const output = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      ...nodeFlags,
      join(ROOT, 'bench/informer-child.mjs'),
      variant,
      NAMESPACE,
      KUBECONFIG_PATH,
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  return JSON.parse(output.trim().split('\n').pop()!) as {
    objects: number;
    syncMs: number;
    rssMb: number;
    rssGrowthMb: number;
    heapMb: number;
  };
}

console.log('\n== workqueue: add + get + done per second ==');
console.log('case'.padEnd(44), 'ours'.padStart(14), 'bare FIFO (reference)'.padStart(24));
for (const row of await runWorkqueueBench())
  console.log(row.name.padEnd(44), fmt(row.ours).padStart(14), fmt(row.reference).padStart(24));

// The child processes load the built library (plain JavaScript), like the app does.
execFileSync('npx', ['--no-install', 'tsc', '-p', 'libs/kube-runtime/tsconfig.build.json'], {
  cwd: ROOT,
  stdio: 'inherit',
});
await ensurePods();
console.log(`\n== informer initial sync of ${fmt(PODS)} pods (median of 3 runs each) ==`);
console.log(
  'variant'.padEnd(48),
  'objects'.padStart(8),
  'sync ms'.padStart(9),
  'RSS MB'.padStart(8),
  'RSS growth'.padStart(11),
  'heap MB'.padStart(8),
);
const variants: { variant: string; label: string; nodeFlags?: string[] }[] = [
  // V8's young generation grows to 3 x 16 MB under allocation bursts such as a list; capping it trades a little
  // GC time for resident memory, the usual setting for memory-bound services.
  {
    variant: 'runtime-strip',
    label: 'kube-runtime, stripped, --max-semi-space-size=2',
    nodeFlags: ['--max-semi-space-size=2'],
  },
  { variant: 'runtime-strip', label: 'kube-runtime, managedFields stripped' },
  { variant: 'runtime', label: 'kube-runtime, objects as served' },
  { variant: 'client-node', label: '@kubernetes/client-node makeInformer (ref.)' },
];
for (const { variant, label, nodeFlags = [] } of variants) {
  const runs = [1, 2, 3].map(() => informerRun(variant, nodeFlags)).sort((a, b) => a.syncMs - b.syncMs);
  const median = runs[1]!;
  console.log(
    label.padEnd(48),
    String(median.objects).padStart(8),
    fmt(median.syncMs).padStart(9),
    median.rssMb.toFixed(1).padStart(8),
    median.rssGrowthMb.toFixed(1).padStart(11),
    median.heapMb.toFixed(1).padStart(8),
  );
}
