// npm run bench:rollout [-- --quick] — reports, never asserts (a broken bound prints a "BOUNDS BROKEN" line; the
// exit code is non-zero only when a rollout could not be measured). Needs the local cluster and the built app.
// N objects × R replicas, one image change (nginx:1.27 → nginx:1.28): N Nginxes rolled by our controller, then N
// Deployments rolled by kube-controller-manager (its Deployment and ReplicaSet controllers), on the same cluster,
// one after the other, each in a namespace of its own, at the same client QPS/burst, with the same RollingUpdate
// strategy (maxSurge 25% / maxUnavailable 25%, the Deployment default; then maxSurge 2 / maxUnavailable 0). For
// each: the time from the image change until every object's status and the pod watch show all pods updated and
// available; the most pods and the fewest available pods any one object had at any moment, against the bounds;
// the writes the controller made per replaced pod, by kind; its CPU and peak memory.
// Writes bench/results/rollout.{md,json,svg}.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HEADLESS, metric, startApp, type AppProcess } from '../test/support/app-process.js';
import { readPid } from '../test/support/cluster-processes.js';
import { migrate } from '../test/support/database.js';
import { CLUSTER_DIR, ROOT } from '../test/support/paths.js';
import { runtimeClient } from '../test/support/runtime.js';
import { sleep, waitFor } from '../test/support/wait.js';
import { requestCountsByGroup, difference } from '../test/support/apiserver-metrics.js';
import { cpuSeconds, peakRssMb } from './convergence/process-stats.js';
import { readyChart } from './convergence/svg-chart.js';
import { RESULTS_DIR, runStamp, writeResults } from './results-file.js';
import { boundsOf, strategyLabel, type Bounds, type RollingStrategy } from './rollout/bounds.js';
import {
  componentLimits,
  controllerBuild,
  createNamespace,
  deleteNamespace,
  limitsEnv,
  machine,
  machineLoad,
  noOtherTests,
  otherTestProcesses,
  quiet,
  restartComponents,
  type ClientLimits,
} from './rollout/cluster.js';
import { DEPLOYMENT_ROLLOUT, NGINX_ROLLOUT, type RolloutKind, type RolloutOwner } from './rollout/kinds.js';
import { watchRollout, type BoundsSeen, type PodsSeen } from './rollout/observer.js';
import {
  WRITE_KINDS,
  controllerWrites,
  kcmClientRequests,
  moved,
  writesOf,
  type ControllerWrites,
} from './rollout/writes.js';

const QUICK = process.argv.includes('--quick');
const COUNT = Number(process.env.BENCH_COUNT ?? (QUICK ? 10 : 100));
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? (QUICK ? 4 : 10));
const FROM = 'nginx:1.27';
const TO = 'nginx:1.28';
const STRATEGIES: RollingStrategy[] = [
  { maxSurge: '25%', maxUnavailable: '25%' },
  { maxSurge: 2, maxUnavailable: 0 },
];
/** Our controller's defaults, given to kube-controller-manager too. */
const EQUAL: ClientLimits = { qps: 50, burst: 100 };
/** BENCH_RESTART_KCM=0 leaves kube-controller-manager and the scheduler as they run (their limits are reported). */
const RESTART = process.env.BENCH_RESTART_KCM !== '0';
const TIMEOUT_MS = Number(process.env.BENCH_ROLLOUT_TIMEOUT_MS ?? 600_000);
/** After the rollout is done, how long to wait at most for the controller's last writes (Events, status). */
const SETTLE_MS = 30_000;

const client = runtimeClient({ qps: 5000, burst: 5000 });
const run = Date.now().toString(36);
let runs = 0;

interface Rollout {
  controller: string;
  kind: string;
  strategy: RollingStrategy;
  bounds: Bounds;
  /** Creating the objects until all pods of the first image were ready (not part of the figures). */
  setupSeconds: number;
  /** Sending the image patch of every object (all at once, the bench's client unthrottled). */
  patchSeconds: number;
  /** From the first patch until every status, and the pod watch, showed the rollout done. */
  seconds: number;
  statusDoneSeconds: number;
  podsDoneSeconds: number;
  /** Until no pod of the old image was left at all, terminating ones included. */
  oldPodsGoneSeconds?: number;
  /** The end of the window in which writes, CPU and load were counted: the controller's writes had stopped. */
  windowSeconds: number;
  podsReplaced: number;
  boundsSeen: BoundsSeen;
  podsSeen: PodsSeen;
  writes: ControllerWrites;
  writesPerReplacedPod: number;
  /** What the controller process counted itself, for comparison. */
  selfReported: Record<string, number | Record<string, number> | undefined>;
  cpuSeconds: number;
  peakRssMb: number;
  clientLimits: { qps: string; burst: string };
  load: { busyCores: number; loadAverage1m: number; otherTests: string[] };
  series: [number, number][];
  /** Ours: the fingerprint of the built controller the run started. */
  build?: string;
  error?: string;
}

async function until(what: string, done: () => boolean, timeoutMs: number, every = 20): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(every);
  }
}

/** Ours, or kube-controller-manager: the process whose CPU and memory count, and how it counts its own writes. */
interface Side {
  kind: RolloutKind;
  pid: () => number;
  limits: () => { qps: string; burst: string };
  selfReport: () => Promise<Record<string, number> | undefined>;
}

/** One rollout: N objects of `side.kind` created with FROM, settled, then all patched to TO and watched. */
async function rollout(side: Side, namespace: string, strategy: RollingStrategy): Promise<Rollout> {
  const { kind } = side;
  const bounds = boundsOf(strategy, REPLICAS);
  const names = Array.from({ length: COUNT }, (_, i) => `roll-${i}`);
  const watch = await watchRollout(client, kind, namespace, { replicas: REPLICAS, bounds, image: TO });
  const result: Partial<Rollout> & Pick<Rollout, 'controller' | 'kind' | 'strategy' | 'bounds'> = {
    controller: kind.controller,
    kind: kind.kind,
    strategy,
    bounds,
    clientLimits: side.limits(),
  };
  try {
    const setupStarted = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: 32 }, async () => {
        while (next < COUNT) {
          const name = names[next++]!;
          await client.request({
            method: 'POST',
            path: kind.collection(namespace),
            body: kind.rolloutManifest(name, REPLICAS, FROM, strategy),
          });
        }
      }),
    );
    await until(
      `${COUNT} ${kind.plural} with ${REPLICAS} ready pods of ${FROM}`,
      () => watch.settledOn(COUNT, FROM),
      TIMEOUT_MS,
      100,
    );
    result.setupSeconds = (performance.now() - setupStarted) / 1000;
    // Tests running in the window would be counted with it (the bench cannot stop one starting meanwhile).
    await noOtherTests();
    await quiet();

    const load = machineLoad();
    const otherTests = new Set(otherTestProcesses());
    const [requestsBefore, cpuBefore, selfBefore] = [
      await requestCountsByGroup(),
      cpuSeconds(side.pid()),
      await side.selfReport(),
    ];
    watch.arm();
    const started = performance.now();
    const elapsed = () => (performance.now() - started) / 1000;
    const generations = new Map<string, number>();
    await Promise.all(
      names.map(async (name) => {
        const patched = await client.request<RolloutOwner>({
          method: 'PATCH',
          path: `${kind.collection(namespace)}/${name}`,
          contentType: 'application/merge-patch+json',
          body: kind.imagePatch(TO),
        });
        generations.set(name, patched.metadata?.generation ?? Infinity);
      }),
    );
    result.patchSeconds = elapsed();

    await until(
      `every ${kind.kind} rolled out to ${TO}`,
      () => {
        if (result.statusDoneSeconds === undefined && watch.statusDone(generations))
          result.statusDoneSeconds = elapsed();
        if (result.podsDoneSeconds === undefined && watch.podsDone(COUNT)) result.podsDoneSeconds = elapsed();
        // Both must hold at once: a status may lag its pods, and the pods may change after a status.
        return watch.statusDone(generations) && watch.podsDone(COUNT);
      },
      TIMEOUT_MS,
    );
    result.seconds = elapsed();
    watch.finish(result.seconds);

    // The window for writes, CPU and load runs on until the controller's writes stop (its last Events may still
    // be queued), 2 s without one, at most SETTLE_MS after the rollout is done.
    const writesNow = async () =>
      controllerWrites(difference(requestsBefore, await requestCountsByGroup()), kind, COUNT, watch.pods());
    let writes = await writesNow();
    for (let still = 0, waited = 0; still < 2 && waited < SETTLE_MS; waited += 1000) {
      await sleep(1000);
      if (result.oldPodsGoneSeconds === undefined && watch.oldPodsGone())
        result.oldPodsGoneSeconds = elapsed();
      const latest = await writesNow();
      still = latest.total === writes.total ? still + 1 : 0;
      writes = latest;
    }
    result.windowSeconds = elapsed();
    if (result.oldPodsGoneSeconds === undefined && watch.oldPodsGone()) result.oldPodsGoneSeconds = elapsed();
    const selfAfter = await side.selfReport();
    result.cpuSeconds = cpuSeconds(side.pid()) - cpuBefore;
    result.peakRssMb = peakRssMb(side.pid());
    result.writes = writes;
    result.podsReplaced = COUNT * REPLICAS;
    result.writesPerReplacedPod = writes.total / result.podsReplaced;
    const self = moved(selfBefore, selfAfter);
    const selfWrites = writesOf(self);
    result.selfReported = selfWrites
      ? { ...self, 'writes (POST, PUT, PATCH, DELETE)': selfWrites }
      : { ...self };
    for (const other of otherTestProcesses()) otherTests.add(other);
    result.load = { ...load(), otherTests: [...otherTests] };
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
    console.error(`${kind.controller}, ${strategyLabel(strategy)}: ${result.error}`);
  } finally {
    result.boundsSeen = watch.bounds();
    result.podsSeen = watch.pods();
    result.series = watch.series();
    await watch.stop();
  }
  return result as Rollout;
}

/** Whether the cluster's CRD already knows the rollout fields (an older one would prune spec.image). */
async function crdIsCurrent(): Promise<boolean> {
  try {
    const crd = await client.request<{
      spec: {
        versions: {
          schema?: { openAPIV3Schema?: { properties?: Record<string, { properties?: object }> } };
        }[];
      };
    }>({ path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/nginxes.mycompany.com' });
    const spec = crd.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec?.properties ?? {};
    return 'image' in spec && 'strategy' in spec;
  } catch {
    return false;
  }
}

async function ours(strategy: RollingStrategy): Promise<Rollout> {
  await quiet();
  const namespace = await createNamespace(client, `bench-rollout-ngx-${run}-${runs++}`);
  let controller: AppProcess | undefined;
  try {
    const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), 'ngx-bench-')), 'audit.db')}`;
    await migrate(databaseUrl);
    const build = controllerBuild();
    const app = (controller = await startApp({
      ...HEADLESS,
      WATCH_NAMESPACE: namespace,
      LEADER_ELECTION: 'false',
      // Installed (idempotently) only when the cluster's CRD predates the rollout fields.
      INSTALL_CRD: String(!(await crdIsCurrent())),
      LOG_FORMAT: 'json',
      AUDIT: 'true',
      DATABASE_URL: databaseUrl,
      KUBE_API_QPS: String(EQUAL.qps),
      KUBE_API_BURST: String(EQUAL.burst),
    }));
    await waitFor('synced caches', async () => (await app.readiness()).checks.controller.ok, {
      timeoutMs: 60_000,
    });
    const counters = async () => {
      const deleted = await metric(app, 'nginx_pods_deleted_total').catch(() => NaN);
      const created = await metric(app, 'nginx_pods_created_total').catch(() => NaN);
      // Not requests by method: what the controller counted of its own pod writes.
      return { 'pods created (own count)': created, 'pods deleted (own count)': deleted };
    };
    const result = await rollout(
      {
        kind: NGINX_ROLLOUT,
        pid: () => app.pid,
        limits: () => ({ qps: String(EQUAL.qps), burst: String(EQUAL.burst) }),
        selfReport: counters,
      },
      namespace,
      strategy,
    );
    return { ...result, build };
  } finally {
    await controller?.terminate();
    await deleteNamespace(client, namespace);
  }
}

async function deployments(strategy: RollingStrategy): Promise<Rollout> {
  // A fresh kube-controller-manager for each run, as bench:convergence does: its peak memory is this run's.
  if (RESTART) await restartComponents(['kube-controller-manager'], limitsEnv(EQUAL));
  await quiet();
  const namespace = await createNamespace(client, `bench-rollout-deploy-${run}-${runs++}`);
  try {
    return await rollout(
      {
        kind: DEPLOYMENT_ROLLOUT,
        pid: () => readPid('kube-controller-manager'),
        limits: () => componentLimits('kube-controller-manager'),
        selfReport: kcmClientRequests,
      },
      namespace,
      strategy,
    );
  } finally {
    await deleteNamespace(client, namespace);
  }
}

const fmt = (n: number | undefined, digits = 1) =>
  n === undefined || Number.isNaN(n) ? '—' : n.toFixed(digits);
const short = (r: Rollout) => (r.kind === 'Nginx' ? 'ours' : 'Deployments (kcm)');

function timesTable(rollouts: Rollout[]): string {
  const rows = [
    '| controller | strategy | client qps / burst | bounds: pods ≤ / available ≥ | patching s | rolled out s | status done s | pods done s | old pods gone s | max pods of one object | min available of one object | within bounds |',
    '| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of rollouts) {
    const b = r.boundsSeen;
    const within = r.error
      ? `— (${r.error})`
      : b.withinBounds
        ? 'yes'
        : `**no**: ${b.overSurge} moments over, ${b.underAvailable} under, ${b.objectsBreaking} objects`;
    rows.push(
      `| ${r.controller} | ${strategyLabel(r.strategy)} | ${r.clientLimits.qps} / ${r.clientLimits.burst} | ` +
        `${r.bounds.maxPods} / ${r.bounds.minAvailable} | ` +
        `${fmt(r.patchSeconds, 2)} | **${fmt(r.seconds)}** | ${fmt(r.statusDoneSeconds)} | ${fmt(r.podsDoneSeconds)} | ` +
        `${fmt(r.oldPodsGoneSeconds)} | ${b.maxPods} | ${Number.isFinite(b.minAvailable) ? b.minAvailable : '—'} | ${within} |`,
    );
  }
  return rows.join('\n');
}

function writesTable(rollouts: Rollout[]): string {
  const kinds = WRITE_KINDS.filter((k) => rollouts.some((r) => (r.writes?.byKind[k] ?? 0) > 0));
  const rows = [
    `| controller | strategy | writes | writes per replaced pod | ${kinds.join(' | ')} | CPU s | peak RSS MiB |`,
    `| --- | --- | ---: | ---: | ${kinds.map(() => '---:').join(' | ')} | ---: | ---: |`,
  ];
  for (const r of rollouts) {
    if (!r.writes) continue;
    rows.push(
      `| ${r.controller} | ${strategyLabel(r.strategy)} | ${r.writes.total} | **${fmt(r.writesPerReplacedPod, 2)}** | ` +
        `${kinds.map((k) => r.writes.byKind[k]).join(' | ')} | ${fmt(r.cpuSeconds, 2)} | ${fmt(r.peakRssMb, 0)} |`,
    );
  }
  return rows.join('\n');
}

function versions() {
  const kwok = (() => {
    try {
      return execFileSync(join(CLUSTER_DIR, 'bin/kwok'), ['--version'], { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  // --no-optional-locks: reading the working tree's state must not refresh (write) the index.
  const changed = execFileSync(
    'git',
    ['--no-optional-locks', 'status', '--porcelain', '--', 'apps', 'libs'],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter(Boolean).length;
  return { kwok, uncommittedAppFiles: changed };
}

async function main(): Promise<void> {
  const version = await client.request<{ gitVersion: string }>({ path: '/version' });
  const stamp = runStamp(version.gitVersion);
  const { kwok, uncommittedAppFiles } = versions();
  const pods = COUNT * REPLICAS;
  console.log(
    `${COUNT} objects × ${REPLICAS} replicas = ${pods} pods replaced per rollout, ${FROM} → ${TO}; Kubernetes ${version.gitVersion}`,
  );
  for (const strategy of STRATEGIES) {
    const b = boundsOf(strategy, REPLICAS);
    console.log(
      `bounds for ${strategyLabel(strategy)} of ${REPLICAS} replicas: at most ${b.maxPods} pods, at least ${b.minAvailable} available`,
    );
  }
  const rollouts: Rollout[] = [];
  const startedAt = machineLoad();
  try {
    if (RESTART) {
      await restartComponents(['kube-scheduler', 'kube-controller-manager'], limitsEnv(EQUAL));
      await sleep(5000); // the restarted scheduler's caches
    }
    for (const strategy of STRATEGIES) {
      for (const side of [ours, deployments]) {
        const r = await side(strategy);
        rollouts.push(r);
        console.log(
          `${short(r)}, ${strategyLabel(strategy)}: ${r.error ? `FAILED: ${r.error}` : `${fmt(r.seconds)} s`}, ` +
            `max ${r.boundsSeen.maxPods} pods, min ${r.boundsSeen.minAvailable} available of one object, ` +
            `${fmt(r.writesPerReplacedPod, 2)} writes per replaced pod`,
        );
      }
    }
  } finally {
    // Back to the cluster's own defaults.
    if (RESTART) await restartComponents(['kube-scheduler', 'kube-controller-manager'], {});
    client.close();
  }
  const overall = startedAt();

  const broken = rollouts.filter((r) => !r.boundsSeen.withinBounds);
  const boundsLines = rollouts.map((r) => {
    const b = r.boundsSeen;
    const state = b.withinBounds ? 'within bounds' : 'BOUNDS BROKEN';
    const first = b.firstBreak
      ? `; first: ${b.firstBreak.object} at ${fmt(b.firstBreak.at, 2)} s had ${b.firstBreak.pods} pods, ${b.firstBreak.available} available (${b.firstBreak.bound})`
      : '';
    return (
      `- ${short(r)}, ${strategyLabel(r.strategy)}: ${state} — at most ${b.maxPods} pods of one object ` +
      `(bound ${r.bounds.maxPods}${b.maxPodsAt ? `: ${b.maxPodsAt.object} at ${fmt(b.maxPodsAt.at, 2)} s, ${b.maxPodsAt.pods - b.maxPodsAt.updated} old and ${b.maxPodsAt.updated} new` : ''}), ` +
      `at least ${b.minAvailable} available (bound ${r.bounds.minAvailable}${b.minAvailableAt ? `, ${b.minAvailableAt.object} at ${fmt(b.minAvailableAt.at, 2)} s` : ''})` +
      `${first}; ${r.podsSeen.events} pod events checked`
    );
  });
  const loadLines = rollouts.map(
    (r) =>
      `- ${short(r)}, ${strategyLabel(r.strategy)}: ${r.load ? `${fmt(r.load.busyCores, 2)} cores busy on average, load average ${fmt(r.load.loadAverage1m, 2)}; other test processes seen during it: ${r.load.otherTests.length ? `${r.load.otherTests.length} (in rollout.json)` : 'none'}` : '—'}`,
  );
  const selfLines = rollouts.map(
    (r) =>
      `- ${short(r)}, ${strategyLabel(r.strategy)}: counted here ${r.writes?.byKind['pod creates'] ?? '—'} pod creates, ` +
      `${r.writes?.byKind['pod deletes'] ?? '—'} pod deletes, ${r.writes?.total ?? '—'} writes; the process itself: ` +
      `${Object.entries(r.selfReported ?? {})
        .map(([k, v]) => `${k} ${typeof v === 'number' ? v : JSON.stringify(v)}`)
        .join(', ')}`,
  );
  const { cpu, cores, memoryGiB } = machine();
  const markdown = [
    '# Rollout: our Nginx controller next to the Deployment controller',
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}` +
      (uncommittedAppFiles
        ? ` (with ${uncommittedAppFiles} uncommitted files under apps/ and libs/, built as they were)`
        : '') +
      `: Kubernetes ${stamp.kubernetes} (local control plane, ${kwok}), Node.js ${process.version}; ` +
      `${cpu}, ${cores} cores, ${memoryGiB} GiB. ${COUNT} objects × ${REPLICAS} replicas, image ${FROM} → ${TO} ` +
      `(kwok pods: nothing is pulled, a pod is ready as soon as kwok marks it). Each side in a namespace of its own, ` +
      `one after the other. Both at ${EQUAL.qps} qps / burst ${EQUAL.burst}: ours through KUBE_API_QPS/KUBE_API_BURST ` +
      `(one client for everything), kube-controller-manager through --kube-api-qps/--kube-api-burst (as it runs with ` +
      `--use-service-account-credentials, each of its controllers — Deployment and ReplicaSet — has a client, and a ` +
      `limit, of its own). ` +
      (RESTART
        ? 'kube-scheduler at 5000 qps so it is not the bottleneck. '
        : 'kube-controller-manager and kube-scheduler were left as they ran (BENCH_RESTART_KCM=0): the table ' +
          "shows kube-controller-manager's limits. ") +
      `Our controller watches only its ` +
      `namespace (WATCH_NAMESPACE) and keeps its audit trail (SQLite); its build (apps/api/dist/controller): ` +
      `${[...new Set(rollouts.map((r) => r.build).filter(Boolean))].join(', ') || '—'}` +
      (new Set(rollouts.map((r) => r.build).filter(Boolean)).size > 1 ? ' (**rebuilt between runs**)' : '') +
      '.',
    '',
    timesTable(rollouts),
    '',
    `"rolled out" runs from the first image patch until every object's status reports all ${REPLICAS} pods updated ` +
      'and available, no other pod, for the patched generation (Nginx and Deployment alike: `updatedReplicas == ' +
      `availableReplicas == replicas == ${REPLICAS}\`, \`observedGeneration\` current) **and** the bench's pod watch ` +
      `shows ${REPLICAS} pods of ${TO} per object, all ready, none other but terminating ones ("status done" and ` +
      `"pods done" are when each first held). "old pods gone": no pod of ${FROM} left, terminating ones included ` +
      `(checked each second after the rollout). "patching": the ${COUNT} merge patches, sent at once.`,
    '',
    '## Bounds',
    '',
    `For each pod event (one pod watch per side; the informer applies them in resourceVersion order), the pods of ` +
      'the object concerned are counted: pods neither terminating nor finished (what maxSurge bounds) and, of those, ' +
      'ready ones (available; minReadySeconds is 0). A bound is broken by any single object above `replicas + ' +
      'maxSurge` or below `replicas - maxUnavailable` at any event.',
    '',
    ...boundsLines,
    '',
    "The Deployment controller keeps its bounds on its ReplicaSets' `spec.replicas` and `status.availableReplicas`, " +
      'not on pods: once it has scaled the old ReplicaSet down and the new one up, the ReplicaSet controller may ' +
      "create the new ReplicaSet's pods before it deletes the old one's, and until it does the pods of the " +
      'Deployment exceed `replicas + maxSurge`. Our controller plans from the pods in its cache, deleting before ' +
      'creating in each sync.',
    '',
    broken.length
      ? `**BOUNDS BROKEN** in ${broken.length} rollout(s): ${broken.map((r) => `${short(r)} (${strategyLabel(r.strategy)})`).join(', ')}.`
      : 'Both controllers kept both bounds for every object in every rollout.',
    '',
    '## API writes',
    '',
    writesTable(rollouts),
    '',
    `Writes are what kube-apiserver counted (apiserver_request_total) from the first image patch until the ` +
      `controller's writes stopped (2 s without one), divided by the ${pods} pods replaced. apiserver_request_total ` +
      'has no label for the client, so writes are put down to their writer by verb and resource, one side running at ' +
      "a time: not counted are the bench's image patches, kube-scheduler's bindings and its events.k8s.io Events, " +
      "kwok's pod and node status and leases, and kwok's two DELETEs of each terminating pod (its pod-delete stage: " +
      'the final one and a second, mostly answered 404; the pod watch counts the pods). Counted: pod creates, pod deletes, ' +
      'status writes (Nginx status; Deployment and ' +
      'ReplicaSet status), ReplicaSet and ControllerRevision writes, and core Events (the kube-controller-manager ' +
      'side has two controllers writing). CPU is the controller process over the same window (all of ' +
      "kube-controller-manager's controllers); peak RSS is the process's high-water mark (ours started for the run, " +
      'kube-controller-manager restarted for it).',
    '',
    'As each process counted itself:',
    '',
    ...selfLines,
    '',
    '## Load',
    '',
    `Machine over the whole bench: ${fmt(overall.busyCores, 2)} of ${cores} cores busy on average. During each ` +
      'rollout window:',
    '',
    ...loadLines,
    '',
    '![pods updated and available over time](rollout.svg)',
    '',
  ].join('\n');
  writeResults('rollout', markdown, {
    ...stamp,
    kwok,
    uncommittedAppFiles,
    machine: machine(),
    count: COUNT,
    replicas: REPLICAS,
    from: FROM,
    to: TO,
    clientLimits: EQUAL,
    overallLoad: overall,
    rollouts,
  });
  const colors = ['#0969da', '#cf222e', '#54aeff', '#fb8f44'];
  writeFileSync(
    join(RESULTS_DIR, 'rollout.svg'),
    readyChart(
      `${pods} pods updated and available after ${FROM} → ${TO}, ${EQUAL.qps} qps / burst ${EQUAL.burst}`,
      rollouts.map((r, i) => ({
        label: `${short(r)}, ${strategyLabel(r.strategy)}`,
        color: colors[i % colors.length]!,
        points: r.series,
      })),
      pods,
      { x: 'seconds since the image change', y: 'pods updated and available' },
    ),
  );
  for (const r of broken)
    console.log(
      `BOUNDS BROKEN: ${r.controller}, ${strategyLabel(r.strategy)}: max ${r.boundsSeen.maxPods} pods of one object ` +
        `(bound ${r.bounds.maxPods}), min ${r.boundsSeen.minAvailable} available (bound ${r.bounds.minAvailable})`,
    );
  if (rollouts.some((r) => r.error)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
