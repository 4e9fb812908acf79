import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SharedInformer, type KubeClient, type KubeObject } from '../../libs/kube-runtime/src/index.js';
import { kubectl } from './kubectl.js';
import { CLUSTER_DIR, KUBECONFIG_PATH, ROOT } from './paths.js';
import { freePort } from './prometheus.js';
import { waitFor } from './wait.js';

// Flagger as a peer of our Gateway API canary (issue 46): built from the Go module pinned in tools/flagger
// (tools/flagger/build.sh), its CRDs taken from that same module (artifacts/flagger/crd.yaml), run out of cluster
// against the local kube-apiserver as its admin, with its Gateway API provider (gateway.networking.k8s.io/v1).

const run = promisify(execFile);

/** Where tools/flagger/build.sh links the built binary and the module's CRD manifest. */
export const FLAGGER = join(CLUSTER_DIR, 'bin/flagger');
export const FLAGGER_CRDS = join(CLUSTER_DIR, 'bin/flagger-crd.yaml');

/** Whether Flagger has been built (a run that must not build it checks this first). */
export const flaggerBuilt = (): boolean => existsSync(FLAGGER) && existsSync(FLAGGER_CRDS);

/** Builds Flagger unless the pinned version is already built (minutes the first time); its path. */
export async function buildFlagger(): Promise<string> {
  const { stdout } = await run('bash', [join(ROOT, 'tools/flagger/build.sh')], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
}

/**
 * Applies Flagger's CRDs (Canary, MetricTemplate, AlertProvider; Flagger exits at start when one is missing) and
 * waits until each is served. Server-side, as the other peers' large CRDs are.
 */
export async function applyFlaggerCrds(): Promise<void> {
  await kubectl('apply', '--server-side', '--force-conflicts', '-f', FLAGGER_CRDS);
  await kubectl(
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/canaries.flagger.app',
    'crd/metrictemplates.flagger.app',
    'crd/alertproviders.flagger.app',
  );
}

export interface FlaggerOptions {
  /** The only namespace whose Canaries it watches. */
  namespace: string;
  /**
   * How often it syncs its Canaries with its per-Canary analysis timers (-control-loop-interval; Flagger's default
   * 10 s, 1 s unless told): a new Canary waits up to this long before its first tick.
   */
  controlLoopInterval?: string;
  /**
   * Its default Prometheus (-metrics-server). Canaries without metrics never query it; Flagger only logs, at start,
   * that it is unreachable. Unset: a port on 127.0.0.1 nothing listens on, refused at once (no DNS wait).
   */
  metricsServer?: string;
  logLevel?: string;
  qps?: number;
  burst?: number;
}

/** Flagger's command line: out of cluster, one namespace, Gateway API v1 routing, no leader election. */
export function flaggerArgs(
  options: FlaggerOptions & { kubeconfig: string; port: number; metricsServer: string },
) {
  return [
    `-kubeconfig=${options.kubeconfig}`,
    `-namespace=${options.namespace}`,
    '-mesh-provider=gatewayapi:v1',
    `-metrics-server=${options.metricsServer}`,
    `-port=${options.port}`,
    `-control-loop-interval=${options.controlLoopInterval ?? '1s'}`,
    `-log-level=${options.logLevel ?? 'info'}`,
    '-enable-leader-election=false',
    ...(options.qps !== undefined ? [`-kubeconfig-qps=${options.qps}`] : []),
    ...(options.burst !== undefined ? [`-kubeconfig-burst=${options.burst}`] : []),
  ];
}

export interface FlaggerProcess {
  pid: number;
  /** Where everything it printed goes (zap's JSON lines). */
  logPath: string;
  /** What it has logged so far. */
  log: () => string;
  /** SIGTERM, SIGKILL after `graceMs`; resolves once it has exited. */
  stop: (graceMs?: number) => Promise<void>;
}

/**
 * Starts the built Flagger against the local cluster and resolves once its /healthz answers, which it serves only
 * after its informer caches have synced (its workers start right after); rejects (and kills it) when it exits
 * first or does not answer within `timeoutMs`. Its CRDs must be applied first (applyFlaggerCrds).
 */
export async function startFlagger(
  options: FlaggerOptions & { logPath?: string; timeoutMs?: number },
): Promise<FlaggerProcess> {
  if (!flaggerBuilt()) throw new Error(`${FLAGGER} is missing: run bash tools/flagger/build.sh`);
  const port = await freePort();
  const metricsServer = options.metricsServer ?? `http://127.0.0.1:${await freePort()}`;
  const logPath = options.logPath ?? join(CLUSTER_DIR, `logs/flagger-${options.namespace}.log`);
  const logFd = openSync(logPath, 'w');
  const child = spawn(
    FLAGGER,
    flaggerArgs({ ...options, kubeconfig: KUBECONFIG_PATH, port, metricsServer }),
    {
      cwd: ROOT,
      stdio: ['ignore', logFd, logFd],
    },
  );
  closeSync(logFd); // the child holds its own copy
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const log = () => readFileSync(logPath, 'utf8');
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitFor(
      'flagger to serve /healthz',
      async () => {
        if (child.exitCode !== null)
          throw new Error(`flagger exited before it was ready:\n${log().slice(-4000)}`);
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      },
      { timeoutMs: options.timeoutMs ?? 60_000, intervalMs: 100 },
    );
  } catch (error) {
    await stop(0);
    throw error;
  }
  return { pid: child.pid!, logPath, log, stop };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Gateway API and Flagger objects, read loosely
type Body = KubeObject & Record<string, any>;

/** The weights of an HTTPRoute's weighted rule (the one with two backendRefs), as Flagger reads them back. */
export interface RouteWeights {
  primary: number;
  canary: number;
}

/** `<name>-primary` and `<name>-canary`'s weights in the route Flagger owns, or undefined while it has no such rule. */
export function flaggerRouteWeights(route: Body, name: string): RouteWeights | undefined {
  for (const rule of (route.spec?.rules ?? []) as Body[]) {
    const refs = (rule.backendRefs ?? []) as { name: string; weight?: number }[];
    const primary = refs.find((ref) => ref.name === `${name}-primary`);
    const canary = refs.find((ref) => ref.name === `${name}-canary`);
    if (primary && canary) return { primary: primary.weight ?? 1, canary: canary.weight ?? 1 };
  }
  return undefined;
}

/** A moment of a run, in ms since the rollout was triggered (the image patch was sent). */
export interface Timed<T> {
  atMs: number;
  value: T;
}

export interface FlaggerCanaryRun {
  /** The route's weights at the trigger, then each change as the watch delivered it (repeats left out). */
  weights: Timed<RouteWeights>[];
  /** The Canary's status.phase at the trigger, then each change (Progressing, Promoting, Finalising, Succeeded). */
  phases: Timed<string>[];
  /** From the trigger until the watch delivered status.phase Succeeded. */
  succeededMs: number;
}

export interface FlaggerCanaryOptions {
  /** The Deployment, the Canary and (Flagger's naming) the Services and the HTTPRoute. */
  name: string;
  replicas?: number;
  /** The Gateway the route attaches to (no implementation is needed for the weights to be written). */
  gateway?: string;
  stepWeights?: number[];
  /**
   * Flagger's analysis interval: one tick per step. Its CRD takes `1s`, but Flagger raises anything under 10 s to
   * 10 s (Canary.GetAnalysisInterval), so 10s is the shortest it runs.
   */
  interval?: string;
  threshold?: number;
  timeoutMs?: number;
}

const deploymentOf = (name: string, replicas: number, image: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels: { app: name } },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'nginx', image, ports: [{ name: 'http', containerPort: 80 }] }] },
    },
  },
});

const canaryOf = (name: string, options: Required<Omit<FlaggerCanaryOptions, 'timeoutMs'>>) => ({
  apiVersion: 'flagger.app/v1beta1',
  kind: 'Canary',
  metadata: { name },
  spec: {
    targetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
    service: { port: 80, targetPort: 80, gatewayRefs: [{ name: options.gateway }] },
    analysis: {
      interval: options.interval,
      threshold: options.threshold,
      stepWeights: options.stepWeights,
      metrics: [],
    },
  },
});

/**
 * Runs one Flagger canary in `namespace` (where a Flagger started with startFlagger watches): creates the
 * Deployment (nginx:1.27; kwok makes its pods Ready) and its Canary, waits until Flagger has initialized it (its
 * `<name>-primary` Deployment, Services and the HTTPRoute `<name>`), then changes the image and records, from a
 * watch of the route and one of the Canary, each weight and phase until status.phase is Succeeded.
 */
export async function runFlaggerCanary(
  client: KubeClient,
  namespace: string,
  options: FlaggerCanaryOptions,
): Promise<FlaggerCanaryRun> {
  const { name } = options;
  const settings = {
    name,
    replicas: options.replicas ?? 2,
    gateway: options.gateway ?? 'edge',
    stepWeights: options.stepWeights ?? [20, 50],
    interval: options.interval ?? '10s',
    threshold: options.threshold ?? 2,
  };
  // Initialization takes Flagger three ticks, the canary six (see test/flagger-gateway.test.ts).
  const timeoutMs = options.timeoutMs ?? 180_000;
  const deployments = `/apis/apps/v1/namespaces/${namespace}/deployments`;
  const canaries = `/apis/flagger.app/v1beta1/namespaces/${namespace}/canaries`;
  await client.request({
    method: 'POST',
    path: deployments,
    body: deploymentOf(name, settings.replicas, 'nginx:1.27'),
  });
  await client.request({ method: 'POST', path: canaries, body: canaryOf(name, settings) });
  await waitFor(
    `Flagger to initialize canary ${namespace}/${name}`,
    async () => (await client.request<Body>({ path: `${canaries}/${name}` })).status?.phase === 'Initialized',
    { timeoutMs, intervalMs: 200 },
  );

  const weights: Timed<RouteWeights>[] = [];
  const phases: Timed<string>[] = [];
  let triggeredAt: number | undefined;
  const atMs = () => (triggeredAt === undefined ? 0 : performance.now() - triggeredAt);
  const record = <T>(series: Timed<T>[], value: T | undefined, same: (a: T, b: T) => boolean) => {
    if (value === undefined) return;
    const last = series.at(-1);
    if (last && same(last.value, value)) return;
    series.push({ atMs: atMs(), value });
  };
  const onRoute = (route: Body) =>
    record(
      weights,
      flaggerRouteWeights(route, name),
      (a, b) => a.primary === b.primary && a.canary === b.canary,
    );
  const onCanary = (canary: Body) =>
    record(phases, canary.status?.phase as string | undefined, (a, b) => a === b);

  const byName = `metadata.name=${name}`;
  const routeInformer = new SharedInformer<Body>({
    client,
    resource: { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes', namespace },
    kind: 'HTTPRoute',
    fieldSelector: byName,
  });
  const canaryInformer = new SharedInformer<Body>({
    client,
    resource: { group: 'flagger.app', version: 'v1beta1', plural: 'canaries', namespace },
    kind: 'Canary',
    fieldSelector: byName,
  });
  for (const [informer, handle] of [
    [routeInformer, onRoute],
    [canaryInformer, onCanary],
  ] as const)
    informer.addEventHandler({ add: handle, update: (_, current) => handle(current) });
  const stop = new AbortController();
  const running = [routeInformer.run(stop.signal), canaryInformer.run(stop.signal)];
  try {
    await Promise.all([routeInformer.waitForCacheSync(), canaryInformer.waitForCacheSync()]);
    // What held before the trigger is the run's first entry, at 0 ms (entries recorded before it read 0).
    for (const series of [weights, phases] as Timed<unknown>[][]) series.splice(0, series.length - 1);
    triggeredAt = performance.now();
    await client.request({
      method: 'PATCH',
      path: `${deployments}/${name}`,
      contentType: 'application/strategic-merge-patch+json',
      body: { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.27-alpine' }] } } } },
    });
    const ended = await waitFor(
      `canary ${namespace}/${name} to succeed or fail`,
      () => {
        const last = phases.at(-1);
        return last?.value === 'Succeeded' || last?.value === 'Failed' ? last : undefined;
      },
      { timeoutMs, intervalMs: 20 },
    );
    if (ended.value === 'Failed')
      throw new Error(`canary ${namespace}/${name} failed: ${JSON.stringify({ weights, phases })}`);
    return { weights, phases, succeededMs: ended.atMs };
  } finally {
    stop.abort();
    await Promise.all(running);
  }
}
