// npm run bench:rollout [-- --quick] — reports, never asserts (a broken bound prints a "BOUNDS BROKEN" line; the
// exit code is non-zero only when a rollout could not be measured). Needs the local cluster and the built app.
// N objects × R replicas, one image change (nginx:1.27 → nginx:1.28): N Nginxes rolled by our controller, then N
// Deployments rolled by kube-controller-manager (its Deployment and ReplicaSet controllers), on the same cluster,
// one after the other, each in a namespace of its own, at the same client QPS/burst, with the same RollingUpdate
// strategy (maxSurge 25% / maxUnavailable 25%, the Deployment default; then maxSurge 2 / maxUnavailable 0). For
// each: the time from the image change until every object's status and the pod watch show all pods updated and
// available; the most pods and the fewest available pods any one object had at any moment, against the bounds;
// the writes the controller made per replaced pod, by kind; its CPU and peak memory.
// Then a Gateway API canary (20 → 50 → promotion, a pause each) through an HTTPRoute: ours next to Flagger's,
// BENCH_GATEWAY_COUNT of each at once (`-- --gateway-only`: only these rows, put into the existing results); then
// the blue-green race, ours and Argo Rollouts', BENCH_BLUE_GREEN_COUNT a side (`-- --bluegreen-only`: likewise).
// Writes bench/results/rollout.{md,json,svg}.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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
import {
  applyArgoRolloutsCrds,
  argoRolloutsBuilt,
  startArgoRollouts,
  WARN_READY_LINE,
} from './rollout/argo-rollouts.js';
import { ARGO_CANARY, CANARY_PAUSE_SECONDS, NGINX_CANARY } from './rollout/canary.js';
import {
  ARGO_BLUE_GREEN,
  BLUE_GREEN_SCALE_DOWN_DELAY_SECONDS,
  NGINX_BLUE_GREEN,
  blueGreenTable,
  raceBlueGreen,
  type BlueGreenRace,
} from './rollout/bluegreen.js';
import { abortedCanary, undoneDeployments, type Rollback } from './rollout/rollback.js';
import { CounterExporter, TestPrometheus } from '../test/support/prometheus.js';
import { applyFlaggerCrds, flaggerBuilt, runFlaggerCanary, startFlagger } from '../test/support/flagger.js';
import { httpRoutes, ourRouteWeights, runOurGatewayCanary } from '../test/support/gateway-canary.js';
import type { KubeObject } from '../libs/kube-runtime/src/index.js';
import { LABEL_REVISION, type Nginx } from '../libs/nginx-api/src/index.js';
import {
  GATEWAY_PAUSE_SECONDS,
  GATEWAY_STEP_WEIGHTS,
  gatewayTable,
  ourGatewaySteps,
  spliceSection,
  stepMismatches,
  summarizeGatewaySide,
  type GatewayCanaryRun,
  type GatewaySide,
  weightText,
} from './rollout/gateway.js';
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
/** The bounds inside each canary step, on both sides (ours' and Argo's canary defaults). */
const CANARY_BOUNDS: RollingStrategy = { maxSurge: '25%', maxUnavailable: 0 };
/** Our controller's defaults, given to kube-controller-manager too. */
const EQUAL: ClientLimits = { qps: 50, burst: 100 };
/** BENCH_RESTART_KCM=0 leaves kube-controller-manager and the scheduler as they run (their limits are reported). */
const RESTART = process.env.BENCH_RESTART_KCM !== '0';
const TIMEOUT_MS = Number(process.env.BENCH_ROLLOUT_TIMEOUT_MS ?? 600_000);
/** `--gateway-only`: only the Gateway API canary rows, spliced into the results of an earlier full run. */
const GATEWAY_ONLY = process.argv.includes('--gateway-only');
/** Gateway API canaries per side, all at once (each of REPLICAS pods). */
const GATEWAY_COUNT = Number(process.env.BENCH_GATEWAY_COUNT ?? (QUICK ? 5 : 20));
const GATEWAY_HEADING = '## Gateway API canary: ours vs Flagger';
/** `--bluegreen-only`: only the blue-green rows, spliced into the results of an earlier full run. */
const BLUE_GREEN_ONLY = process.argv.includes('--bluegreen-only');
/** Blue-green objects per side, promoted (then aborted) all at once. */
const BLUE_GREEN_COUNT = Number(process.env.BENCH_BLUE_GREEN_COUNT ?? (QUICK ? 5 : 20));
const BLUE_GREEN_HEADING = '## Blue-green: ours vs Argo Rollouts';
/** How long one Gateway API canary may take from its creation until done, before it counts as not measured. */
const GATEWAY_TIMEOUT_MS = Number(process.env.BENCH_GATEWAY_TIMEOUT_MS ?? 300_000);
/** After the rollout is done, how long to wait at most for the controller's last writes (Events, status). */
const SETTLE_MS = 30_000;

const client = runtimeClient({ qps: 5000, burst: 5000 });
const run = Date.now().toString(36);
let runs = 0;

interface Rollout {
  controller: string;
  kind: string;
  strategy: RollingStrategy;
  /** The strategy as the results name it. */
  strategyText: string;
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
    strategyText: kind.strategyText?.(strategy) ?? strategyLabel(strategy),
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
    console.error(`${kind.controller}, ${result.strategyText}: ${result.error}`);
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

/** Our controller started for a run on a namespace of its own: `body` runs with it, then both go. */
async function withOurController<T>(
  body: (app: AppProcess, namespace: string, build: string) => Promise<T>,
): Promise<T> {
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
    return await body(app, namespace, build);
  } finally {
    await controller?.terminate();
    await deleteNamespace(client, namespace);
  }
}

async function ours(strategy: RollingStrategy, kind: RolloutKind = NGINX_ROLLOUT): Promise<Rollout> {
  return withOurController(async (app, namespace, build) => {
    const counters = async () => {
      const deleted = await metric(app, 'nginx_pods_deleted_total').catch(() => NaN);
      const created = await metric(app, 'nginx_pods_created_total').catch(() => NaN);
      // Not requests by method: what the controller counted of its own pod writes.
      return { 'pods created (own count)': created, 'pods deleted (own count)': deleted };
    };
    const result = await rollout(
      {
        kind,
        pid: () => app.pid,
        limits: () => ({ qps: String(EQUAL.qps), burst: String(EQUAL.burst) }),
        selfReport: counters,
      },
      namespace,
      strategy,
    );
    return { ...result, build };
  });
}

const oursCanary = (strategy: RollingStrategy) => ours(strategy, NGINX_CANARY);

/** Argo Rollouts' controller, started for the run at our limits and log level warn (its peak memory is this run's). */
async function argo(strategy: RollingStrategy): Promise<Rollout> {
  await applyArgoRolloutsCrds();
  await quiet();
  const namespace = await createNamespace(client, `bench-rollout-argo-${run}-${runs++}`);
  // At warn its "workers started" line is not printed; the setup (every Rollout settled) shows it synced.
  const controller = await startArgoRollouts({
    qps: EQUAL.qps,
    burst: EQUAL.burst,
    logLevel: 'warn',
    readyLine: WARN_READY_LINE,
  });
  try {
    return await rollout(
      {
        kind: ARGO_CANARY,
        pid: () => controller.pid,
        limits: () => ({ qps: String(EQUAL.qps), burst: String(EQUAL.burst) }),
        selfReport: async () => undefined,
      },
      namespace,
      strategy,
    );
  } finally {
    await controller.stop();
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

/**
 * GATEWAY_COUNT canaries at once in the side's namespace, `runOne` each; the controller's CPU and peak memory over the
 * whole of it (`pid`). A canary that fails costs its figures, not the side's.
 */
async function gatewayCanaries(
  controller: string,
  pid: number,
  runOne: (name: string) => Promise<GatewayCanaryRun>,
): Promise<GatewaySide> {
  const cpuBefore = cpuSeconds(pid);
  const load = machineLoad();
  const started = performance.now();
  const settled = await Promise.allSettled(
    Array.from({ length: GATEWAY_COUNT }, (_, i) => runOne(`gw-${i}`)),
  );
  const runs = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  const failures = settled.flatMap((s) =>
    s.status === 'rejected' ? [s.reason instanceof Error ? s.reason.message : String(s.reason)] : [],
  );
  for (const failure of failures) console.error(`${controller}, Gateway API canary: FAILED: ${failure}`);
  return {
    controller,
    clientLimits: EQUAL,
    runs,
    failures,
    summary: summarizeGatewaySide(runs, GATEWAY_STEP_WEIGHTS),
    cpuSeconds: cpuSeconds(pid) - cpuBefore,
    peakRssMb: peakRssMb(pid),
    wallSeconds: (performance.now() - started) / 1000,
    machineBusyCores: load().busyCores,
  };
}

/** The Flagger version tools/flagger pins (what tools/flagger/build.sh builds). */
const FLAGGER_VERSION =
  /github\.com\/fluxcd\/flagger (v\S+)/.exec(readFileSync(join(ROOT, 'tools/flagger/go.mod'), 'utf8'))?.[1] ??
  'unknown';

/** Where a canary of ours that did not finish stood: its phase and revisions, the route's split, the stable Service's revision. */
async function ourCanaryState(namespace: string, name: string): Promise<string> {
  try {
    const nginx = await client.request<Nginx>({
      path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes/${name}`,
    });
    const route = await client.request<KubeObject & { spec?: object }>({
      path: `${httpRoutes(namespace)}/${name}`,
    });
    const stable = await client.request<{ spec?: { selector?: Record<string, string> } }>({
      path: `/api/v1/namespaces/${namespace}/services/${name}-stable`,
    });
    const weights = ourRouteWeights(route, name);
    const { status } = nginx;
    return (
      `at the end: phase ${status?.canary?.phase ?? '—'}, currentRevision ${status?.currentRevision ?? '—'}, ` +
      `updateRevision ${status?.updateRevision ?? '—'}, route ${weights ? weightText(weights) : '—'}, ` +
      `${name}-stable on revision ${stable.spec?.selector?.[LABEL_REVISION] ?? '—'}`
    );
  } catch (error) {
    return `its state unread: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Ours: an Nginx of REPLICAS pods and the user's HTTPRoute per canary, setWeight 20, pause, setWeight 50, pause. */
const oursGateway = () =>
  withOurController((app, namespace) => {
    const steps = ourGatewaySteps(GATEWAY_STEP_WEIGHTS, GATEWAY_PAUSE_SECONDS);
    return gatewayCanaries('Nginx controller (ours)', app.pid, async (name) => {
      const result = await runOurGatewayCanary(client, namespace, {
        name,
        steps,
        replicas: REPLICAS,
        timeoutMs: GATEWAY_TIMEOUT_MS,
      }).catch(async (error: unknown) => {
        throw new Error(
          `${error instanceof Error ? error.message : String(error)}; ${await ourCanaryState(namespace, name)}`,
        );
      });
      return { weights: result.weights, doneMs: result.doneMs };
    });
  });

/**
 * Flagger (Gateway API provider) at our limits, its -metrics-server a Debian Prometheus (the analysis has no metrics:
 * it queries nothing): a Deployment of REPLICAS pods and a Canary of stepWeights 20, 50 per canary.
 */
async function flaggerGateway(): Promise<GatewaySide> {
  await applyFlaggerCrds();
  await quiet();
  const namespace = await createNamespace(client, `bench-rollout-flagger-${run}-${runs++}`);
  const exporter = new CounterExporter();
  await exporter.start();
  const prometheus = new TestPrometheus(exporter.port);
  try {
    await prometheus.start();
    const flagger = await startFlagger({
      namespace,
      qps: EQUAL.qps,
      burst: EQUAL.burst,
      metricsServer: prometheus.address,
    });
    try {
      return await gatewayCanaries(
        `Flagger ${FLAGGER_VERSION} (+ kube-controller-manager for its Deployments)`,
        flagger.pid,
        async (name) => {
          const result = await runFlaggerCanary(client, namespace, {
            name,
            replicas: REPLICAS,
            stepWeights: [...GATEWAY_STEP_WEIGHTS],
            interval: `${GATEWAY_PAUSE_SECONDS}s`,
            timeoutMs: GATEWAY_TIMEOUT_MS,
          });
          return { weights: result.weights, doneMs: result.succeededMs };
        },
      );
    } finally {
      await flagger.stop();
    }
  } finally {
    await prometheus.stop();
    await exporter.stop();
    await deleteNamespace(client, namespace);
  }
}

const fmt = (n: number | undefined, digits = 1) =>
  n === undefined || Number.isNaN(n) ? '—' : n.toFixed(digits);
const short = (r: { kind?: string; controller: string }) =>
  r.kind === 'Rollout'
    ? 'Argo Rollouts'
    : r.kind === 'Nginx' || r.controller.includes('ours')
      ? 'ours'
      : 'Deployments (kcm)';

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
      `| ${r.controller} | ${r.strategyText} | ${r.clientLimits.qps} / ${r.clientLimits.burst} | ` +
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
      `| ${r.controller} | ${r.strategyText} | ${r.writes.total} | **${fmt(r.writesPerReplacedPod, 2)}** | ` +
        `${kinds.map((k) => r.writes.byKind[k]).join(' | ')} | ${fmt(r.cpuSeconds, 2)} | ${fmt(r.peakRssMb, 0)} |`,
    );
  }
  return rows.join('\n');
}

function canaryLines(rollouts: Rollout[]): string {
  const argoRow = rollouts.find((r) => r.kind === 'Rollout');
  return (
    `The canary rows: the same change rolled by a two-step canary — setWeight 50, a pause of ${CANARY_PAUSE_SECONDS} s, ` +
    'then the end of the steps (100%) — with maxSurge 25% / maxUnavailable 0 inside each step, on our Nginx ' +
    "(strategy.type Canary) and on Argo Rollouts' Rollout (strategy.canary, no traffic routing: the weight is a " +
    `share of pods). The ${CANARY_PAUSE_SECONDS} s pause is part of both sides' time. ` +
    (argoRow
      ? "Argo Rollouts' controller (v1.10.1, built from the Go module proxy: npm run peer:argo-rollouts) was started " +
        `for its run at --qps ${EQUAL.qps} --burst ${EQUAL.burst} --loglevel warn, every namespace, no leader election. ` +
        "Its Rollout owns ReplicaSets, whose pods kube-controller-manager's ReplicaSet controller creates and deletes: " +
        "the Argo row's writes include that controller's (pod creates and deletes, ReplicaSet status), its CPU and " +
        "peak RSS are the Argo process's alone. Argo's status.observedGeneration is a string; it is compared as a number."
      : '**No Argo Rollouts row**: its controller was not built (npm run peer:argo-rollouts).')
  );
}

function backToStableSection(rollbacks: Rollback[]): string[] {
  if (!rollbacks.length) return [];
  const rows = rollbacks.map(
    (b) =>
      `| ${b.controller} | ${b.how} | ${b.updatedAtTrigger ?? '—'} | ` +
      (b.error
        ? `— | — | ${b.error} |`
        : `**${fmt(b.fromLastSeconds, 2)}** | ${fmt(b.fromFirstSeconds, 2)} | ${fmt(((b.lastTriggerAt ?? 0) - (b.firstTriggerAt ?? 0)) / 1000, 2)} |`),
  );
  return [
    '## Back to the stable revision mid-rollout',
    '',
    '| controller | how | pods updated and ready at the first trigger | last trigger → all back s | first trigger → all back s | first → last trigger s |',
    '| --- | --- | ---: | ---: | ---: | ---: |',
    ...rows,
    '',
    `Same ${COUNT} × ${REPLICAS}, ${FROM} → ${TO}, one after the other, each in a namespace of its own. "All back": ` +
      `the bench's pod watch shows, for every object, ${REPLICAS} pods of ${FROM}, all ready, none other but ` +
      'terminating ones. **Ours**: a canary of setWeight 50 then an analysis step, `spec.rollbackOnFailure: true`; ' +
      "the analysis is a query to a real Prometheus (Debian's, as test/nginx-canary-analysis.test.ts runs it) " +
      'scraping an exporter that serves a 20% error rate, `successCondition: result < 0.01`, one measurement, so ' +
      "each object's run fails at its first measurement. The trigger is each object's failure as the controller " +
      "recorded it (the time of the failing measurement in `status.canary.analysisRuns`, the controller's clock, " +
      "the bench's machine); the first and last trigger are the earliest and latest of the objects' failures. " +
      "Ours decides and rolls back by itself: from a failure to all back counts the controller's reaction and the " +
      'pods. **Deployments**: RollingUpdate 25% / 25% patched to the new image; once the pod watch showed half of ' +
      'all pods on it and ready, one `kubectl rollout undo deployments -l bench-undo=true` undid all of them (the first ' +
      'trigger: the command started; the last: it returned, every Deployment patched back to its previous ' +
      "template). It measures kube-controller-manager's rollback of a rollout in flight once a person has decided " +
      '— the time to notice and decide is not in it, while ours includes none either: the analysis failure is the ' +
      'decision. Where each rollout stood at the trigger differs a little (the column of pods updated).',
    '',
  ];
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

/** Half-way back to the old image: our canary aborted by its failing analysis, then Deployments undone by hand. */
async function backToStable(): Promise<Rollback[]> {
  const options = { count: COUNT, replicas: REPLICAS, from: FROM, to: TO, timeoutMs: TIMEOUT_MS };
  // A real Prometheus scraping an exporter that serves a 20% error rate: the query's result fails `< 0.01`.
  const exporter = new CounterExporter();
  await exporter.start();
  const prometheus = new TestPrometheus(exporter.port);
  try {
    await prometheus.start();
    exporter.set([
      { labels: { status: '200' }, perSecond: 80 },
      { labels: { status: '500' }, perSecond: 20 },
    ]);
    await waitFor('Prometheus to rate the errors', async () => {
      const [sample] = await prometheus.query(ERROR_RATE);
      return sample !== undefined && Number(sample.value[1]) > 0;
    });
    const analysis = {
      name: 'errors',
      prometheus: { address: prometheus.address, query: ERROR_RATE },
      successCondition: 'result < 0.01',
      interval: '1s',
      count: 1,
      failureLimit: 0,
    };
    const aborted = await withOurController((_app, namespace) =>
      abortedCanary(client, namespace, options, analysis),
    );
    if (RESTART) await restartComponents(['kube-controller-manager'], limitsEnv(EQUAL));
    await quiet();
    const namespace = await createNamespace(client, `bench-rollout-undo-${run}-${runs++}`);
    try {
      return [aborted, await undoneDeployments(client, namespace, options)];
    } finally {
      await deleteNamespace(client, namespace);
    }
  } finally {
    await prometheus.stop();
    await exporter.stop();
  }
}

/** A side that could not run at all (its peer not built, or not started). */
const unmeasured = (controller: string, error: string): GatewaySide => ({
  controller,
  clientLimits: EQUAL,
  runs: [],
  failures: [],
  summary: summarizeGatewaySide([], GATEWAY_STEP_WEIGHTS),
  error,
});

/** Ours, then Flagger's (when built), one after the other; a side that cannot start costs its row only. */
async function gatewayRows(): Promise<GatewaySide[]> {
  const sides: GatewaySide[] = [];
  const failedSide = (controller: string) => (error: unknown) =>
    unmeasured(controller, error instanceof Error ? error.message : String(error));
  sides.push(await oursGateway().catch(failedSide('Nginx controller (ours)')));
  sides.push(
    flaggerBuilt()
      ? await flaggerGateway().catch(failedSide(`Flagger ${FLAGGER_VERSION}`))
      : unmeasured(`Flagger ${FLAGGER_VERSION}`, 'not built (bash tools/flagger/build.sh)'),
  );
  for (const side of sides)
    console.log(
      `${side.controller}, Gateway API canary: ${side.error ? `FAILED: ${side.error}` : `${side.runs.length} done, p50 ${side.summary.doneSeconds.p50.toFixed(1)} s`}`,
    );
  return sides;
}

function gatewaySection(sides: GatewaySide[], stamp: ReturnType<typeof runStamp>): string {
  const mismatches = stepMismatches(
    Object.fromEntries(sides.map((side) => [side.controller, side.runs])),
    GATEWAY_STEP_WEIGHTS,
  );
  for (const line of mismatches) console.log(line);
  const steps = GATEWAY_STEP_WEIGHTS.join(', ');
  const { cpu, cores } = machine();
  return [
    GATEWAY_HEADING,
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}: Kubernetes ${stamp.kubernetes}, ${cpu}, ${cores} cores. ` +
      `${GATEWAY_COUNT} canaries a side, all at once, each of ${REPLICAS} replicas, in a namespace of its own a side, ` +
      `one side after the other, on the same cluster and at the same client limits as the rows above ` +
      (GATEWAY_ONLY ? '(this section run on its own, `--gateway-only`, after them; ' : '(') +
      `${EQUAL.qps} qps / burst ${EQUAL.burst}; kube-controller-manager too${RESTART ? '' : ', as it ran'}). ` +
      `The steps: the canary's weight ${steps}, a pause of ${GATEWAY_PAUSE_SECONDS} s after each, then promotion. ` +
      `**Ours**: \`strategy.canary.steps\` setWeight 20, pause ${GATEWAY_PAUSE_SECONDS}s, setWeight 50, pause ` +
      `${GATEWAY_PAUSE_SECONDS}s, \`trafficRouting.gatewayAPI.httpRoute\`: the user's HTTPRoute (a rule to ` +
      '`<name>-stable`), image nginx:1.27 → nginx:1.28. **Flagger** (built from the Go module proxy: ' +
      'tools/flagger/build.sh; out of cluster against the local kube-apiserver, `-mesh-provider=gatewayapi:v1`, ' +
      `one namespace, \`-control-loop-interval=1s\`, log level info, \`-kubeconfig-qps=${EQUAL.qps}\` ` +
      `\`-kubeconfig-burst=${EQUAL.burst}\`, \`-metrics-server\` a Debian Prometheus): a Deployment and a Canary of ` +
      `\`stepWeights: [${steps}]\`, \`interval: ${GATEWAY_PAUSE_SECONDS}s\` (its shortest: Flagger raises a shorter ` +
      'interval to 10 s, so the pause on both sides is 10 s), `threshold: 2`, no metrics; its HTTPRoute is the one ' +
      'it generates (primary and canary Services), image nginx:1.27 → nginx:1.27-alpine.',
    '',
    gatewayTable(sides, GATEWAY_STEP_WEIGHTS),
    '',
    ...(mismatches.length
      ? mismatches.map((line) => `- ${line}`)
      : [
          `Both sides went through the same split steps in every canary${sides.some((side) => side.failures.length || side.error) ? ' measured' : ''}: ${steps}.`,
        ]),
    ...sides.flatMap((side) =>
      side.failures.length
        ? ['', `Not measured, ${side.controller}:`, '', ...side.failures.map((failure) => `- ${failure}`)]
        : [],
    ),
    '',
    `A canary not done ${GATEWAY_TIMEOUT_MS / 1000} s after it was created is not measured. ` +
      'Each time runs from the image change (the patch sent) of that canary, on a watch of its HTTPRoute: "route at ' +
      '80/20" and "50/50" are when the watch first delivered that split; "done" is, for ours, when the Nginx was ' +
      '`Promoted` with `currentRevision == updateRevision`, every pod available and the route back at 100/0 on the ' +
      'stable Service (polled every 100 ms); for Flagger, when the watch of its Canary delivered phase `Succeeded` ' +
      '(the primary rolled out on the new template, the route back at 100/0 on it, the canary Deployment scaled to ' +
      "0). The pauses are part of both sides' time. Flagger does one thing per analysis tick (every 10 s per " +
      'Canary): it notices the new revision and scales the canary Deployment up, then writes 80/20, 50/50, copies ' +
      'the template to its primary (Promoting), routes back to it (Finalising), and reports Succeeded. Ours routes ' +
      '0/100 once the canary has every pod, moves the stable Service to the new revision and routes back to it ' +
      '(the extra `0/100` in its sequence); the split steps are compared without that. CPU and peak RSS are the ' +
      "controller process's over the side's whole run (creating and settling its canaries, then rolling them); " +
      "Flagger's Deployments are rolled by kube-controller-manager, whose CPU is not in its row. " +
      '"machine busy cores": the whole machine over the same time, other work on it included (the times move with it).',
    '',
  ].join('\n');
}

/** A section run on its own: put into the results an earlier full run wrote (its place kept, or before Load). */
function writeSectionOnly(heading: string, key: string, section: string, figures: object): void {
  const read = (file: string) => {
    const path = join(RESULTS_DIR, file);
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  };
  const markdown = spliceSection(
    read('rollout.md') ?? '# Rollout: our Nginx controller next to the Deployment controller\n',
    heading,
    section,
    '## Load',
  );
  const earlier = JSON.parse(read('rollout.json') ?? '{}') as object;
  writeResults('rollout', markdown, { ...earlier, [key]: figures });
}

/** The blue-green race on our controller, then on Argo Rollouts' (when built); a side that fails costs its row. */
async function blueGreenRows(): Promise<BlueGreenRace[]> {
  const options = { count: BLUE_GREEN_COUNT, replicas: REPLICAS, timeoutMs: TIMEOUT_MS };
  const failedRace = (controller: string) => (error: unknown) => {
    const none = { switchedP50: NaN, switchedMax: NaN, activeSelectorWrites: 0 };
    const message = error instanceof Error ? error.message : String(error);
    return {
      controller,
      objects: options.count,
      replicas: options.replicas,
      promote: none,
      abort: none,
      error: message,
    };
  };
  const races: BlueGreenRace[] = [];
  races.push(
    await withOurController((_app, namespace) =>
      raceBlueGreen(client, NGINX_BLUE_GREEN, namespace, options),
    ).catch(failedRace(NGINX_BLUE_GREEN.controller)),
  );
  if (argoRolloutsBuilt()) {
    await applyArgoRolloutsCrds();
    await quiet();
    const namespace = await createNamespace(client, `bench-rollout-argo-bg-${run}-${runs++}`);
    const controller = await startArgoRollouts({
      qps: EQUAL.qps,
      burst: EQUAL.burst,
      logLevel: 'warn',
      readyLine: WARN_READY_LINE,
    });
    try {
      races.push(
        await raceBlueGreen(client, ARGO_BLUE_GREEN, namespace, options).catch(
          failedRace(ARGO_BLUE_GREEN.controller),
        ),
      );
    } finally {
      await controller.stop();
      await deleteNamespace(client, namespace);
    }
  } else
    races.push(failedRace(ARGO_BLUE_GREEN.controller)(new Error('not built (npm run peer:argo-rollouts)')));
  for (const race of races)
    console.log(
      `${race.controller}, blue-green: ${race.error ? `FAILED: ${race.error}` : `promote ${race.promote.switchedP50.toFixed(2)} s, abort ${race.abort.podsGoneP50?.toFixed(2)} s (p50)`}`,
    );
  return races;
}

function blueGreenSection(races: BlueGreenRace[], stamp: ReturnType<typeof runStamp>): string {
  return [
    BLUE_GREEN_HEADING,
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}: Kubernetes ${stamp.kubernetes}. ` +
      `${BLUE_GREEN_COUNT} objects a side, each of ${REPLICAS} replicas, in a namespace of its own a side, one side ` +
      `after the other, at ${EQUAL.qps} qps / burst ${EQUAL.burst}. Both sides: no automatic promotion, the whole ` +
      `preview (spec.replicas pods), a scale-down delay of ${BLUE_GREEN_SCALE_DOWN_DELAY_SECONDS} s after the switch. ` +
      '**Ours**: `strategy.type: BlueGreen`, promoted and aborted by the annotations our REST API writes. **Argo ' +
      'Rollouts** (v1.10.1, tools/argo-rollouts): a Rollout with `strategy.blueGreen` and its two Services, promoted ' +
      'and aborted as `kubectl argo rollouts` does (status `pauseConditions: null`; status `abort: true`), ' +
      '`abortScaleDownDelaySeconds: 1` (0 keeps the aborted pods; ours deletes them at once). Every object is ' +
      'changed (nginx:1.27 → 1.28), and once every preview is ready and waiting, all are promoted at once; then ' +
      'changed again (→ 1.29) and, once every preview waits, all aborted at once. Each controller at its own ' +
      'default concurrency: ours 4 workers (CONTROLLER_WORKERS), Argo Rollouts 10 rollout threads.',
    '',
    blueGreenTable(races),
    '',
    '"promote": from the requests until the watch of the Services delivered the active Service selecting only the ' +
      'new revision (one selector write each: "active selector writes"). "abort": until no pod of the aborted ' +
      'revision was left (deleted, not merely terminating); the active Service never moved on either side, and ' +
      'both leave the preview Service on the aborted revision (no pods, no endpoints).',
    '',
  ].join('\n');
}

const ERROR_RATE =
  'sum(rate(nginx_http_requests_total{status="500"}[15s])) / sum(rate(nginx_http_requests_total[15s]))';

async function main(): Promise<void> {
  const version = await client.request<{ gitVersion: string }>({ path: '/version' });
  const stamp = runStamp(version.gitVersion);
  const { kwok, uncommittedAppFiles } = versions();
  const pods = COUNT * REPLICAS;
  if (BLUE_GREEN_ONLY)
    console.log(
      `Blue-green only: ${BLUE_GREEN_COUNT} objects a side × ${REPLICAS} replicas; Kubernetes ${version.gitVersion}`,
    );
  else if (GATEWAY_ONLY)
    console.log(
      `Gateway API canary only: ${GATEWAY_COUNT} canaries a side × ${REPLICAS} replicas; Kubernetes ${version.gitVersion}`,
    );
  else {
    console.log(
      `${COUNT} objects × ${REPLICAS} replicas = ${pods} pods replaced per rollout, ${FROM} → ${TO}; Kubernetes ${version.gitVersion}`,
    );
    for (const strategy of STRATEGIES) {
      const b = boundsOf(strategy, REPLICAS);
      console.log(
        `bounds for ${strategyLabel(strategy)} of ${REPLICAS} replicas: at most ${b.maxPods} pods, at least ${b.minAvailable} available`,
      );
    }
  }
  const rollouts: Rollout[] = [];
  const rollbacks: Rollback[] = [];
  const failures: string[] = [];
  let gateway: GatewaySide[] = [];
  let blueGreen: BlueGreenRace[] = [];
  const report = (r: Rollout) => {
    rollouts.push(r);
    console.log(
      `${short(r)}, ${r.strategyText}: ${r.error ? `FAILED: ${r.error}` : `${fmt(r.seconds)} s`}, ` +
        `max ${r.boundsSeen.maxPods} pods, min ${r.boundsSeen.minAvailable} available of one object, ` +
        `${fmt(r.writesPerReplacedPod, 2)} writes per replaced pod`,
    );
  };
  const startedAt = machineLoad();
  try {
    if (RESTART) {
      await restartComponents(['kube-scheduler', 'kube-controller-manager'], limitsEnv(EQUAL));
      await sleep(5000); // the restarted scheduler's caches
    }
    if (!GATEWAY_ONLY && !BLUE_GREEN_ONLY) {
      for (const strategy of STRATEGIES) {
        for (const side of [ours, deployments]) {
          report(await side(strategy));
        }
      }
      const canarySides = argoRolloutsBuilt() ? [oursCanary, argo] : [oursCanary];
      if (!argoRolloutsBuilt())
        console.log('Argo Rollouts is not built (npm run peer:argo-rollouts): no Argo row');
      // A peer that cannot start, or a Prometheus that cannot, costs its rows, not the others.
      const failed = (what: string) => (error: unknown) => {
        console.error(`${what}: FAILED: ${error instanceof Error ? error.message : String(error)}`);
        failures.push(what);
      };
      for (const side of canarySides) await side(CANARY_BOUNDS).then(report, failed(`${side.name} canary`));
      await backToStable().then((runs) => rollbacks.push(...runs), failed('back to stable'));
      for (const b of rollbacks)
        console.log(
          `${short(b)}, back to stable: ${b.error ? `FAILED: ${b.error}` : `${fmt(b.fromLastSeconds)} s from the last trigger, ${fmt(b.fromFirstSeconds)} s from the first`}`,
        );
    }
    if (!BLUE_GREEN_ONLY) gateway = await gatewayRows();
    if (!GATEWAY_ONLY) blueGreen = await blueGreenRows();
  } finally {
    // Back to the cluster's own defaults.
    if (RESTART) await restartComponents(['kube-scheduler', 'kube-controller-manager'], {});
    client.close();
  }
  const overall = startedAt();
  const gatewayFigures = {
    ...stamp,
    count: GATEWAY_COUNT,
    replicas: REPLICAS,
    stepWeights: GATEWAY_STEP_WEIGHTS,
    pauseSeconds: GATEWAY_PAUSE_SECONDS,
    clientLimits: EQUAL,
    sides: gateway,
  };
  if (gateway.some((side) => side.error || side.failures.length)) process.exitCode = 1;
  if (blueGreen.some((race) => race.error)) process.exitCode = 1;
  const blueGreenFigures = {
    ...stamp,
    count: BLUE_GREEN_COUNT,
    replicas: REPLICAS,
    clientLimits: EQUAL,
    races: blueGreen,
  };
  if (GATEWAY_ONLY) {
    writeSectionOnly(GATEWAY_HEADING, 'gateway', gatewaySection(gateway, stamp), gatewayFigures);
    return;
  }
  if (BLUE_GREEN_ONLY) {
    writeSectionOnly(BLUE_GREEN_HEADING, 'blueGreen', blueGreenSection(blueGreen, stamp), blueGreenFigures);
    return;
  }

  const broken = rollouts.filter((r) => !r.boundsSeen.withinBounds);
  const boundsLines = rollouts.map((r) => {
    const b = r.boundsSeen;
    const state = b.withinBounds ? 'within bounds' : 'BOUNDS BROKEN';
    const first = b.firstBreak
      ? `; first: ${b.firstBreak.object} at ${fmt(b.firstBreak.at, 2)} s had ${b.firstBreak.pods} pods, ${b.firstBreak.available} available (${b.firstBreak.bound})`
      : '';
    return (
      `- ${short(r)}, ${r.strategyText}: ${state} — at most ${b.maxPods} pods of one object ` +
      `(bound ${r.bounds.maxPods}${b.maxPodsAt ? `: ${b.maxPodsAt.object} at ${fmt(b.maxPodsAt.at, 2)} s, ${b.maxPodsAt.pods - b.maxPodsAt.updated} old and ${b.maxPodsAt.updated} new` : ''}), ` +
      `at least ${b.minAvailable} available (bound ${r.bounds.minAvailable}${b.minAvailableAt ? `, ${b.minAvailableAt.object} at ${fmt(b.minAvailableAt.at, 2)} s` : ''})` +
      `${first}; ${r.podsSeen.events} pod events checked`
    );
  });
  const loadLines = rollouts.map(
    (r) =>
      `- ${short(r)}, ${r.strategyText}: ${r.load ? `${fmt(r.load.busyCores, 2)} cores busy on average, load average ${fmt(r.load.loadAverage1m, 2)}; other test processes seen during it: ${r.load.otherTests.length ? `${r.load.otherTests.length} (in rollout.json)` : 'none'}` : '—'}`,
  );
  const selfLines = rollouts.map(
    (r) =>
      `- ${short(r)}, ${r.strategyText}: counted here ${r.writes?.byKind['pod creates'] ?? '—'} pod creates, ` +
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
    canaryLines(rollouts),
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
      ? `**BOUNDS BROKEN** in ${broken.length} rollout(s): ${broken.map((r) => `${short(r)} (${r.strategyText})`).join(', ')}.`
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
    ...backToStableSection(rollbacks),
    gatewaySection(gateway, stamp),
    blueGreenSection(blueGreen, stamp),
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
    rollbacks,
    gateway: gatewayFigures,
    blueGreen: blueGreenFigures,
  });
  const colors = ['#0969da', '#cf222e', '#54aeff', '#fb8f44', '#1a7f37', '#8250df'];
  writeFileSync(
    join(RESULTS_DIR, 'rollout.svg'),
    readyChart(
      `${pods} pods updated and available after ${FROM} → ${TO}, ${EQUAL.qps} qps / burst ${EQUAL.burst}`,
      rollouts.map((r, i) => ({
        label: `${short(r)}, ${r.strategyText}`,
        color: colors[i % colors.length]!,
        points: r.series,
      })),
      pods,
      { x: 'seconds since the image change', y: 'pods updated and available' },
    ),
  );
  for (const r of broken)
    console.log(
      `BOUNDS BROKEN: ${r.controller}, ${r.strategyText}: max ${r.boundsSeen.maxPods} pods of one object ` +
        `(bound ${r.bounds.maxPods}), min ${r.boundsSeen.minAvailable} available (bound ${r.bounds.minAvailable})`,
    );
  if (rollouts.some((r) => r.error) || rollbacks.some((b) => b.error) || failures.length)
    process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
