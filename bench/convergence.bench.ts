// npm run bench:convergence [-- --quick | --large | --scale] [-- --no-audit-log]
// [-- --ours-only [--profile] [--profile-api] [--no-audit] [--equal] [--idle] [--timeline=on|off] [--traced] [--warm]]
// [-- --timeline-only] [-- --audit-only] [-- --tracing-only]
// — reports, never asserts. Needs the local cluster.
// Our Nginx controller next to kube-controller-manager's ReplicaSet controller on the same cluster, in the same
// run: N objects × R replicas created (timed until every status.readyReplicas == R), scaled to R/2, deleted;
// first with the same client QPS/burst for both, then with both unthrottled. Also: the limit (pods created
// directly by a tight client), the API requests and writes per pod each controller caused, its CPU and memory,
// an idle stretch with the pods in place, and our convergence with the audit trail on and off. Unless
// --no-audit-log, kube-apiserver runs with an audit log of pod and workload writes meanwhile (restarted with
// CLUSTER_AUDIT_LOG, and without it at the end), which tells who sent each write of each phase.
// Writes bench/results/convergence.{md,json,svg}.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPid } from '../test/support/cluster-processes.js';
import { HEADLESS, metric, startApp, type AppProcess } from '../test/support/app-process.js';
import { migrate, postgresDatabase } from '../test/support/database.js';
import { CLUSTER_DIR, ROOT } from '../test/support/paths.js';
import { runtimeClient } from '../test/support/runtime.js';
import { TestCollector } from '../test/support/otel-collector.js';
import { requestCounts } from '../test/support/apiserver-metrics.js';
import type { SenderWrites } from '../test/support/apiserver-audit-log.js';
import { restartComponents } from './convergence/cluster-components.js';
import { freePort, inspectorProfiler, type CpuProfile } from './convergence/cpu-profile.js';
import { flameGraphSvg, inclusiveMs, selfTimes, timeByOrigin } from './convergence/flame-graph.js';
import { peakRssMb, postgresCpuSeconds, rssMb } from './convergence/process-stats.js';
import { readyChart } from './convergence/svg-chart.js';
import { saveProfile } from './profile-summary.js';
import { RESULTS_DIR, runStamp, writeResults } from './results-file.js';
import {
  AFTER_MS,
  NGINX,
  REPLICA_SET,
  directPods,
  runWorkload,
  type PhaseResult,
  type WorkloadKind,
} from './convergence/workload.js';
import { sleep, waitFor } from '../test/support/wait.js';

const QUICK = process.argv.includes('--quick');
const LARGE = process.argv.includes('--large');
/** `--scale`: 1,000 objects × 10 (10,000 pods), unthrottled, ours next to the ReplicaSet controller only. */
const SCALE = process.argv.includes('--scale');
const COUNT = Number(process.env.BENCH_COUNT ?? (QUICK ? 20 : LARGE ? 500 : SCALE ? 1000 : 100));
const REPLICAS = Number(process.env.BENCH_REPLICAS ?? (QUICK ? 4 : 10));
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? (QUICK ? 15 : 60));
/** Our controller's defaults, given to kube-controller-manager too for the equal-limits runs. */
const EQUAL = { qps: 50, burst: 100 };
const UNTHROTTLED = { qps: 100_000, burst: 100_000 };
/** kube-apiserver's audit log during the benchmark (kept afterwards, for a closer look). */
const AUDIT_LOG =
  process.argv.includes('--no-audit-log') || SCALE
    ? undefined
    : join(CLUSTER_DIR, 'logs', 'convergence-audit.log');
/**
 * The port kube-apiserver's audit webhook posts to (tools/cluster/lib.sh's default); BENCH_API_PORT for a cluster
 * started without the webhook (CLUSTER_AUDIT_WEBHOOK=off) beside another that uses the port.
 */
const WEBHOOK_PORT = process.env.BENCH_API_PORT ?? '3000';
/** The benchmark's own User-Agent: it uses the admin kubeconfig like our controller, which sends "nginx-control-plane". */
const BENCH_AGENT = 'nginx-bench';

const client = runtimeClient({ qps: 5000, burst: 5000, userAgent: BENCH_AGENT });
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
  /** The kind's resource: its status writes count as the controller's writes. */
  plural: string;
  limits: string;
  audit?: boolean;
  /** The timeline's evidence and informer-observed changes (AUDIT_TIMELINE), with the audit trail on. */
  timeline?: boolean;
  /** Ours with the web UI served from the same process (WEB_MODE=production), not the controller alone. */
  web?: boolean;
  /** Ours exporting OpenTelemetry traces (OTEL_EXPORTER_OTLP_ENDPOINT set) from both processes. */
  tracing?: boolean;
  /** Ours: reconciles the controller ran from its start to the run's end (controller_runtime_reconcile_total). */
  reconciles?: number;
  /** Ours: seconds the controller spent collecting garbage from its start to the run's end (nodejs_gc_duration_seconds). */
  gcSeconds?: number;
  phases: PhaseResult[];
  /** Ours, run `warm`: the phases of its first converge, the controller just started (`phases` are the second's). */
  firstPhases?: PhaseResult[];
  /** With the audit log: writes received after the last phase ended, until its figures were taken. */
  afterPhases?: SenderWrites[];
  /** With the audit log: how many pods had each sequence of DELETEs ([sender, code] pairs, as JSON). */
  deleteSequences?: Record<string, number>;
  peakRssMb: number;
  /** Ours: the controller's resident memory once its caches synced, before the workload. */
  idleRssMb?: number;
  /** Ours: the API process (ROLE=api) beside the controller — its resident memory once ready, before the run, and its peak. */
  api?: { idleRssMb: number; peakRssMb: number };
  /**
   * With `resync`: the controller restarted with every pod in place — seconds from its start, and from its
   * listening, until ready (caches synced), and its memory then.
   */
  initialSync?: { seconds: number; afterListeningSeconds: number; rssMb: number; peakRssMb: number };
  readyOverTime: [number, number][];
  /** With BENCH_AUDIT_DATABASE=postgresql: the PostgreSQL server's CPU over the whole run (idle stretch included). */
  databaseCpuSeconds?: number;
}

/** CPU profiles of our controller by phase, from the profiled run. */
type PhaseProfiles = Partial<Record<PhaseResult['phase'], CpuProfile>>;

/**
 * One run of ours, as deployed: the controller role alone (ROLE=controller), measured as "ours", and beside it an API
 * process (ROLE=api, the web UI off unless `web`) on the audit webhook's port, which keeps the timeline's evidence
 * and takes kube-apiserver's audit events, its CPU and memory reported apart. The audit trail is on in both unless
 * `audit` is false; each phase of the controller is CPU-profiled into `profiles` when given; with `resync`, the
 * controller is restarted after the idle stretch, with every pod in place, to time its initial sync. kube-controller-
 * manager is restarted with the same client limits first: its garbage collector deletes our pods too.
 */
async function ours(
  limits: { qps: number; burst: number },
  label: string,
  options: {
    audit?: boolean;
    /** AUDIT_TIMELINE; on the audit webhook's port, so kube-apiserver's audit events of the run come in too. */
    timeline?: boolean;
    web?: boolean;
    profiles?: PhaseProfiles;
    /**
     * Converge the workload twice in the same two processes: the run's figures (and `profiles`) are then those of
     * the second, a controller whose code has warmed up, and `firstPhases` those of the first.
     */
    warm?: boolean;
    /** The first converge's phases profiled into this (given, the run is `warm`). */
    firstProfiles?: PhaseProfiles;
    idle?: boolean;
    resync?: boolean;
    /** OTEL_EXPORTER_OTLP_ENDPOINT of both processes: traces on, exported there. */
    otlpEndpoint?: string;
  } = {},
): Promise<Run> {
  const {
    audit = true,
    web = false,
    profiles,
    firstProfiles,
    warm = firstProfiles !== undefined,
    resync = false,
    timeline,
    otlpEndpoint,
  } = options;
  const idle = options.idle ?? (audit && !profiles && !web && label === 'equal');
  await restartComponents(['kube-controller-manager'], limitsEnv(limits));
  const namespace = await namespaceFor('ngx');
  const inspectPort = profiles ? await freePort() : 0;
  const database = ON_POSTGRES
    ? await postgresDatabase()
    : { url: `file:${join(mkdtempSync(join(tmpdir(), 'ngx-bench-')), 'audit.db')}`, drop: async () => {} };
  const databaseUrl = database.url;
  await migrate(databaseUrl);
  const databaseCpuBefore = ON_POSTGRES ? postgresCpuSeconds() : undefined;
  const shared = {
    ...HEADLESS,
    WATCH_NAMESPACE: namespace,
    INSTALL_CRD: 'false',
    LOG_FORMAT: 'json',
    AUDIT: String(audit),
    DATABASE_URL: databaseUrl,
    ...(otlpEndpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint } : {}),
  };
  const start = () =>
    startApp({
      ...shared,
      ROLE: 'controller',
      LEADER_ELECTION: 'false',
      KUBE_API_QPS: String(limits.qps),
      KUBE_API_BURST: String(limits.burst),
      ...(profiles ? { NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}` } : {}),
    });
  const apiInspectPort = PROFILE_API ? await freePort() : 0;
  const api = await startApp({
    ...shared,
    ROLE: 'api',
    PORT: WEBHOOK_PORT,
    ...(PROFILE_API ? { NODE_OPTIONS: `--inspect=127.0.0.1:${apiInspectPort}` } : {}),
    ...(timeline === undefined ? {} : { AUDIT_TIMELINE: String(timeline) }),
    ...(web ? { WEB_MODE: 'production' } : {}),
  });
  await waitFor('the API process ready', async () => (await api.readiness()).ready, { timeoutMs: 60_000 });
  const apiIdleRssMb = rssMb(api.pid);
  const apiProfiler = PROFILE_API ? await inspectorProfiler(apiInspectPort) : undefined;
  await apiProfiler?.start();
  let controller: AppProcess = await start();
  await waitFor('the controller ready', async () => (await controller.readiness()).ready, {
    timeoutMs: 60_000,
  });
  const idleRssMb = rssMb(controller.pid);
  const profiler = profiles ? await inspectorProfiler(inspectPort) : undefined;
  let firstPeakRssMb = 0;
  let initialSync: Run['initialSync'];
  const restart = async () => {
    firstPeakRssMb = peakRssMb(controller.pid);
    await controller.terminate();
    const started = performance.now();
    controller = await start();
    const listening = performance.now();
    await waitFor('the restarted controller ready', async () => (await controller.readiness()).ready, {
      timeoutMs: 600_000,
      intervalMs: 50,
    });
    const ready = performance.now();
    initialSync = {
      seconds: (ready - started) / 1000,
      afterListeningSeconds: (ready - listening) / 1000,
      rssMb: rssMb(controller.pid),
      peakRssMb: peakRssMb(controller.pid),
    };
  };
  const converge = (into: PhaseProfiles | undefined) =>
    runWorkload({
      client,
      kind: NGINX,
      namespace,
      count: COUNT,
      replicas: REPLICAS,
      pid: () => controller.pid,
      apiPid: () => api.pid,
      idleSeconds: idle ? IDLE_SECONDS : 0,
      auditLog: profiles ? undefined : AUDIT_LOG,
      ...(profiler && into
        ? {
            around: {
              start: () => profiler.start(),
              end: async (phase: PhaseResult['phase']) => (into[phase] = await profiler.stop()),
            },
          }
        : resync
          ? { around: { start: async () => {}, end: async (phase) => phase === 'idle' && restart() } }
          : {}),
    });
  try {
    const first = warm ? await converge(firstProfiles) : undefined;
    const result = await converge(profiles);
    const reconciles = await metric(controller, 'controller_runtime_reconcile_total').catch(() => undefined);
    const gcSeconds = await metric(controller, 'nodejs_gc_duration_seconds_sum').catch(() => undefined);
    return {
      controller: 'Nginx controller (ours, ROLE=controller)',
      ...(reconciles === undefined ? {} : { reconciles }),
      ...(gcSeconds === undefined ? {} : { gcSeconds }),
      plural: NGINX.plural,
      limits: label,
      audit,
      ...(timeline === undefined ? {} : { timeline }),
      web,
      ...(otlpEndpoint ? { tracing: true } : {}),
      ...result,
      ...(first ? { firstPhases: first.phases } : {}),
      peakRssMb: Math.max(firstPeakRssMb, peakRssMb(controller.pid)),
      idleRssMb,
      api: { idleRssMb: apiIdleRssMb, peakRssMb: peakRssMb(api.pid) },
      ...(databaseCpuBefore === undefined
        ? {}
        : { databaseCpuSeconds: postgresCpuSeconds()! - databaseCpuBefore }),
      ...(initialSync ? { initialSync } : {}),
    };
  } finally {
    profiler?.close();
    if (apiProfiler) {
      saveProfile(
        `api-${audit ? 'audit' : 'no-audit'}`,
        `The API process, audit ${audit ? 'on' : 'off'}`,
        await apiProfiler.stop(),
      );
      apiProfiler.close();
    }
    await controller.terminate();
    await api.terminate();
    await deleteNamespace(namespace);
    await database.drop();
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
      idleSeconds: label === 'equal' || SCALE ? IDLE_SECONDS : 0,
      auditLog: AUDIT_LOG,
    });
    return {
      controller: 'ReplicaSet controller (kube-controller-manager)',
      plural: REPLICA_SET.plural,
      limits: label,
      ...result,
      peakRssMb: peakRssMb(readPid('kube-controller-manager')),
    };
  } finally {
    await deleteNamespace(namespace);
  }
}

const fmt = (n: number, digits = 1) => n.toFixed(digits);
const runName = (run: Run) =>
  `${run.controller}${run.audit === false ? ', audit off' : ''}` +
  `${run.timeline === undefined ? '' : `, timeline ${run.timeline ? 'on' : 'off'} (webhook port)`}` +
  `${run.web ? ', with the web UI' : ''}${run.tracing ? ', tracing on' : ''}`;

/**
 * Of a sender's writes (audit log), those the "writes" column counts: pods (not their status, kwok's) and the
 * kind's status.
 */
function counted(writes: SenderWrites, plural: string): number {
  let total = 0;
  for (const [request, n] of Object.entries(writes.byRequest)) {
    const resource = request.split(' ')[1];
    if (resource === 'pods' || resource === `${plural}/status`) total += n;
  }
  return total;
}

/** A readable name for a sender of this cluster (its identity, as kube-apiserver saw it, is in its own column). */
function who(sender: string): string {
  if (sender.endsWith(`(${BENCH_AGENT})`)) return 'the benchmark';
  if (sender.endsWith('(nginx-control-plane)')) return 'our controller';
  const account = /^system:serviceaccount:kube-system:([^\s]+)/.exec(sender)?.[1];
  if (account === 'generic-garbage-collector') return 'garbage collector';
  if (account === 'replicaset-controller') return 'ReplicaSet controller';
  if (account) return `kube-controller-manager's ${account}`;
  if (sender.startsWith('kwok')) return 'kwok (the kubelets)';
  if (sender.startsWith('system:kube-scheduler')) return 'kube-scheduler';
  return sender;
}

function table(runs: Run[], limitSeconds: number): string {
  const audited = runs.some((r) => r.phases.some((p) => p.writesBySender));
  const rows = [
    `| controller | client limits | phase | seconds | % of the limit | writes | writes per pod created |${audited ? ' writes in the audit log |' : ''} events | reads | CPU s | peak RSS MiB | API process CPU s | API process peak RSS MiB |`,
    `| --- | --- | --- | ---: | ---: | ---: | ---: |${audited ? ' ---: |' : ''} ---: | ---: | ---: | ---: | ---: | ---: |`,
  ];
  for (const run of runs)
    for (const phase of run.phases) {
      const perPod = phase.podsCreated > 0 ? fmt(phase.writes / phase.podsCreated, 2) : '';
      const ofLimit = phase.phase === 'create' ? `${fmt((limitSeconds / phase.seconds) * 100, 0)}%` : '';
      const inAudit = phase.writesBySender?.reduce((sum, w) => sum + counted(w, run.plural), 0) ?? '';
      rows.push(
        `| ${runName(run)} | ${run.limits} | ${phase.phase} | ${fmt(phase.seconds)} | ` +
          `${ofLimit} | ${phase.writes} | ${perPod} |${audited ? ` ${inAudit} |` : ''} ${phase.events} | ${phase.reads} | ${fmt(phase.cpuSeconds, 2)} | ${fmt(run.peakRssMb, 0)} | ` +
          `${phase.apiCpuSeconds === undefined ? '' : fmt(phase.apiCpuSeconds, 2)} | ${run.api ? fmt(run.api.peakRssMb, 0) : ''} |`,
      );
    }
  return rows.join('\n');
}

/** Writes by sender, from kube-apiserver's audit log: one row per run, phase and sender. */
function sendersTable(runs: Run[]): string {
  const rows = [
    '| controller | client limits | phase | sender | identity (user, User-Agent) | writes | of them counted | to pods deleted in an earlier phase | verb resource code × requests |',
    '| --- | --- | --- | --- | --- | ---: | ---: | ---: | --- |',
  ];
  for (const run of runs) {
    const phases: [string, SenderWrites[] | undefined][] = [
      ...run.phases.map((p) => [p.phase, p.writesBySender] as [string, SenderWrites[] | undefined]),
      [`after ${run.phases.at(-1)?.phase ?? ''}`, run.afterPhases],
    ];
    for (const [phase, senders] of phases)
      for (const writes of senders ?? []) {
        const requests = Object.entries(writes.byRequest)
          .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
          .map(([request, n]) => `${request} × ${n}`)
          .join(', ');
        rows.push(
          `| ${runName(run)} | ${run.limits} | ${phase} | ${who(writes.sender)} | ${writes.sender} | ${writes.total} | ` +
            `${counted(writes, run.plural)} | ${writes.carriedOver} | ${requests} |`,
        );
      }
  }
  return rows.join('\n');
}

/** Of a sender's writes, those matching `verb resource` (any code; `code` to pick one). */
const of = (writes: SenderWrites | undefined, request: string, code?: number) =>
  Object.entries(writes?.byRequest ?? {})
    .filter(([key]) => key.startsWith(`${request} `) && (code === undefined || key.endsWith(` ${code}`)))
    .reduce((sum, [, n]) => sum + n, 0);

/**
 * The "writes" of the create and delete phases, sender by sender, in one sentence per run (from the audit log):
 * what a writes-per-pod figure is made of.
 */
function senderSummary(runs: Run[]): string {
  const lines: string[] = [];
  for (const run of runs) {
    const phase = (name: string) => run.phases.find((p) => p.phase === name);
    const create = phase('create');
    const remove = phase('delete');
    if (!create?.writesBySender || !remove?.writesBySender) continue;
    const senders = (p: PhaseResult) => new Map(p.writesBySender!.map((w) => [who(w.sender), w]));
    const made = senders(create);
    const controller = made.get(run.plural === NGINX.plural ? 'our controller' : 'ReplicaSet controller');
    const creates = of(controller, 'create pods');
    const status =
      of(controller, `update ${run.plural}/status`) + of(controller, `patch ${run.plural}/status`);
    const conflicts =
      of(controller, `update ${run.plural}/status`, 409) + of(controller, `patch ${run.plural}/status`, 409);
    const gone = senders(remove);
    const kwok = gone.get('kwok (the kubelets)');
    const ourDeletes =
      of(gone.get('our controller'), 'delete pods') + of(gone.get('ReplicaSet controller'), 'delete pods');
    lines.push(
      `- ${runName(run)}, ${run.limits}: create ${create.writes} = ${creates} pod creations + ${status} status ` +
        `writes (${conflicts} answered 409) = ${fmt(create.writes / Math.max(1, create.podsCreated), 2)} per pod; ` +
        `delete ${remove.writes} = garbage collector ${of(gone.get('garbage collector'), 'delete pods')} ` +
        `(${of(gone.get('garbage collector'), 'delete pods', 200)} answered 200) + kwok ${of(kwok, 'delete pods')} ` +
        `(${of(kwok, 'delete pods', 200)} × 200, ${of(kwok, 'delete pods', 404)} × 404; ${kwok?.carriedOver ?? 0} of them ` +
        `to pods the scale-down deleted) + the controller ${ourDeletes}` +
        (run.afterPhases?.length
          ? `; after the phase, ${run.afterPhases.map((w) => `${who(w.sender)} ${counted(w, run.plural)}`).join(', ')} more`
          : '') +
        '.',
    );
  }
  return lines.join('\n');
}

/** Every pod's DELETE requests in the order kube-apiserver received them, from the scale-down on, per run. */
function deleteSequences(runs: Run[]): string {
  const lines: string[] = [];
  for (const run of runs) {
    if (!run.deleteSequences) continue;
    const sequences = Object.entries(run.deleteSequences)
      .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
      .map(([key, pods]) => {
        const steps = (JSON.parse(key) as [string, number | null][]).map(
          ([identity, code]) => `${who(identity)} ${code}`,
        );
        return `${pods} × (${steps.join(' → ')})`;
      });
    lines.push(`- ${runName(run)}, ${run.limits}: ${sequences.join('; ')}.`);
  }
  return lines.join('\n');
}

/** `--ours-only [--profile]`: one unthrottled run of our controller alone, printed (for working on it). */
const OURS_ONLY = process.argv.includes('--ours-only');
const PROFILE = process.argv.includes('--profile');
/** `--timeline=on|off` with `--ours-only`: the timeline set on or off, on the webhook's port (as `--timeline-only`). */
const TIMELINE_FLAG = process.argv.find((arg) => arg.startsWith('--timeline='))?.slice('--timeline='.length);
const TIMELINE = TIMELINE_FLAG === undefined ? undefined : TIMELINE_FLAG === 'on';
/** `--profile-api` with `--ours-only`: the API process (ROLE=api) CPU-profiled over the whole run, into .data/profile. */
const PROFILE_API = process.argv.includes('--profile-api');
/** `--no-audit` with `--ours-only`: AUDIT=false. */
const NO_AUDIT = process.argv.includes('--no-audit');
/** `--equal` with `--ours-only`: the same client limits as the ReplicaSet controller's instead of none. */
const OURS_EQUAL = process.argv.includes('--equal');
/** `--ours-only --traced`: with tracing on, exported to a counting collector (to profile what tracing costs). */
const OURS_TRACED = process.argv.includes('--traced');
/** `--warm` with `--ours-only`: the workload converged twice in the same processes (both profiled with `--profile`); the second is the one printed. */
const OURS_WARM = process.argv.includes('--warm');
/** `--idle` with `--ours-only`: the idle stretch too (profiled like the phases under `--profile`). */
const OURS_IDLE = process.argv.includes('--idle');

/**
 * Writes bench/results/convergence-profile.md (each phase's largest costs, by origin and by function) with one flame
 * graph SVG per phase beside it, and the raw profiles (.cpuprofile, for DevTools) into .data/profile/.
 */
function writeProfileResults(profiles: PhaseProfiles, stamp: ReturnType<typeof runStamp>): void {
  const raw = join(ROOT, '.data', 'profile');
  mkdirSync(raw, { recursive: true });
  const lines: string[] = [];
  for (const [phase, profile] of Object.entries(profiles) as [PhaseResult['phase'], CpuProfile][]) {
    const name = phase.replace(' ', '-');
    const file = `convergence-profile-${name}.svg`;
    writeFileSync(join(raw, `${name}.cpuprofile`), JSON.stringify(profile));
    writeFileSync(
      join(RESULTS_DIR, file),
      flameGraphSvg(profile, `Our controller, ${phase} phase (${COUNT} × ${REPLICAS} pods, unthrottled)`),
    );
    const origins = timeByOrigin(profile);
    const total = origins.reduce((sum, o) => sum + o.ms, 0);
    const share = (ms: number) => `${fmt((ms / Math.max(total, 1)) * 100, 0)}%`;
    lines.push(
      `- **${phase}** ([flame graph](${file}), ${fmt(total / 1000, 2)} CPU s sampled). By origin: ` +
        origins
          .slice(0, 8)
          .map((o) => `${o.where} ${share(o.ms)}`)
          .join(', ') +
        '. Functions (self time): ' +
        selfTimes(profile)
          .slice(0, 8)
          .map((f) => `\`${f.name}\` (${f.where}) ${share(f.ms)}`)
          .join(', ') +
        '.',
    );
  }
  const markdown = [
    "# Where our controller's CPU goes",
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}: Kubernetes ${stamp.kubernetes} (local control plane, ` +
      `kwok nodes), Node.js ${process.version}, ${COUNT} Nginxes × ${REPLICAS}, unthrottled, each phase CPU-profiled ` +
      "over the DevTools protocol (V8's sampling profiler, 1 ms interval; a run of its own, as sampling costs CPU). " +
      '"By origin" sums the time functions spent themselves, by package or file of ours; "node" is Node.js\'s own ' +
      'JavaScript (http client, streams, TLS sockets), "V8" native work (socket writes, JSON, microtasks), ' +
      '"WebAssembly" and "prisma (generated client)" the audit trail\'s Prisma query compiler and client.',
    '',
    ...lines,
    '',
  ].join('\n');
  writeFileSync(join(RESULTS_DIR, 'convergence-profile.md'), markdown);
  console.log(`\n${markdown}`);
}

/**
 * `--timeline-only`: ours with the timeline on and off (both on the webhook's port), in pairs of alternating order
 * (on, off, off, on, …; BENCH_TIMELINE_PAIRS, default 2) so neither side gains from going first, and the difference
 * of the means. Run to run, the CPU of one run varies by about ±0.3 s; one pair alone does not tell 10 % apart.
 */
const TIMELINE_ONLY = process.argv.includes('--timeline-only');
const TIMELINE_PAIRS = Number(process.env.BENCH_TIMELINE_PAIRS ?? 2);
/**
 * BENCH_AUDIT_DATABASE=postgresql: our runs store the audit trail in a throwaway database on the test PostgreSQL
 * (TEST_POSTGRES_URL) instead of an SQLite file, and the server's CPU is measured next to the app's.
 */
const ON_POSTGRES = process.env.BENCH_AUDIT_DATABASE === 'postgresql';

async function timelineOnly(): Promise<void> {
  try {
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], limitsEnv(EQUAL));
    await sleep(5000); // the restarted scheduler's caches
    const runs: Run[] = [];
    for (let pair = 0; pair < TIMELINE_PAIRS; pair++)
      for (const timeline of pair % 2 === 0 ? [true, false] : [false, true]) {
        const run = await ours(EQUAL, 'equal', { timeline });
        runs.push(run);
        console.log(
          `${runName(run)}: ` +
            run.phases
              .map((p) => `${p.phase} ${fmt(p.seconds)} s, ${fmt(p.cpuSeconds, 2)} CPU s`)
              .join('; ') +
            `; peak RSS ${fmt(run.peakRssMb, 0)} MiB` +
            (run.databaseCpuSeconds === undefined
              ? ''
              : `; PostgreSQL ${fmt(run.databaseCpuSeconds, 2)} CPU s`),
        );
      }
    const total = (run: Run, figure: 'seconds' | 'cpuSeconds') =>
      run.phases.filter((p) => p.phase !== 'idle').reduce((sum, p) => sum + p[figure], 0);
    type Figure = 'seconds' | 'cpuSeconds' | 'peakRssMb' | 'databaseCpuSeconds';
    const mean = (on: boolean, figure: Figure) => {
      const values = runs
        .filter((run) => run.timeline === on)
        .map((run) =>
          figure === 'peakRssMb' || figure === 'databaseCpuSeconds' ? (run[figure] ?? 0) : total(run, figure),
        );
      return values.reduce((sum, value) => sum + value, 0) / values.length;
    };
    const versus = (figure: Figure, digits: number, unit: string) =>
      `${fmt(mean(true, figure), digits)} ${unit} vs ${fmt(mean(false, figure), digits)} ${unit} ` +
      `(${fmt((mean(true, figure) / mean(false, figure) - 1) * 100)}%)`;
    console.log(
      `timeline on vs off, mean of ${TIMELINE_PAIRS} runs each: convergence (create + scale down + delete) ` +
        `${versus('seconds', 1, 's')}, CPU ${versus('cpuSeconds', 2, 's')}, peak RSS ${versus('peakRssMb', 0, 'MiB')}` +
        (ON_POSTGRES ? `; PostgreSQL's CPU over each run ${versus('databaseCpuSeconds', 2, 's')}` : '') +
        ` (audit on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'})`,
    );
  } finally {
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], {});
    client.close();
  }
}

/**
 * `--audit-only`: the audit trail on and off in AUDIT_PAIRS alternating pairs (off, on, on, off, …), ours alone at
 * equal limits, printing what recording costs as the main run's Goals section does; with
 * BENCH_AUDIT_DATABASE=postgresql (the production store) the PostgreSQL server's CPU over each run is printed too.
 */
const AUDIT_ONLY = process.argv.includes('--audit-only');

async function auditOnly(): Promise<void> {
  try {
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], limitsEnv(EQUAL));
    await sleep(5000); // the restarted scheduler's caches
    const pairs: Run[] = [];
    for (let pair = 0; pair < AUDIT_PAIRS; pair++)
      for (const audit of pair % 2 === 0 ? [false, true] : [true, false]) {
        const run = await ours(EQUAL, 'equal', { audit, idle: false });
        pairs.push(run);
        console.log(
          `audit ${audit ? 'on' : 'off'}: controller ${fmt(workTotal(run, 'cpuSeconds'), 2)} CPU s, ` +
            `API ${fmt(workTotal(run, 'apiCpuSeconds'), 2)} CPU s` +
            (run.databaseCpuSeconds === undefined
              ? ''
              : `, PostgreSQL ${fmt(run.databaseCpuSeconds, 2)} CPU s`),
        );
      }
    console.log(recordingTable(pairs).join('\n'));
  } finally {
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], {});
    client.close();
  }
}

/**
 * `--tracing-only`: what OpenTelemetry tracing costs our controller, spans exported to the OpenTelemetry Collector
 * of tools/otel-collector (which counts and drops them: printing each span would load the 2 cores the app runs
 * on; its own CPU is not counted), at equal limits without the idle stretch. Every run converges the workload twice
 * in the same processes: the first is a controller just started, which also pays V8 for making new code fast (it
 * runs in the interpreter until called often); the second, a controller that has run a while, as one does for days.
 * Measured two ways, each for both converges:
 * - from CPU profiles of BENCH_TRACING_PROFILES traced runs (default 3): the share of the controller's sampled CPU
 *   in tracing code and all it called, per phase and over all, and the exporter's part of it. This counts the
 *   tracing code's own work only, not the garbage it leaves, V8's compiling of it or other threads;
 * - from BENCH_TRACING_PAIRS alternating pairs (default 2) of runs with tracing on and off (off: no SDK
 *   registered, no span made): each converge's CPU seconds (create + scale down + delete) of the controller and
 *   the API process, per reconcile too: everything the process pays, within the spread of runs of one side.
 */
const TRACING_ONLY = process.argv.includes('--tracing-only');
const TRACING_PAIRS = Number(process.env.BENCH_TRACING_PAIRS ?? 2);
const TRACING_PROFILES = Number(process.env.BENCH_TRACING_PROFILES ?? 3);

async function tracingOnly(): Promise<void> {
  const collector = new TestCollector('basic');
  try {
    await collector.start();
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], limitsEnv(EQUAL));
    await sleep(5000); // the restarted scheduler's caches
    const started: TracingCost[][] = [];
    const warmed: TracingCost[][] = [];
    for (let run = 0; run < TRACING_PROFILES; run++) {
      const firstProfiles: PhaseProfiles = {};
      const profiles: PhaseProfiles = {};
      await ours(EQUAL, 'equal', {
        idle: false,
        warm: true,
        firstProfiles,
        profiles,
        otlpEndpoint: collector.endpoint,
      });
      started.push(tracingCosts(firstProfiles));
      warmed.push(tracingCosts(profiles));
      console.log(`profiled run ${run + 1}, just started: ${tracingCostLine(started.at(-1)!)}`);
      console.log(`profiled run ${run + 1}, warmed: ${tracingCostLine(warmed.at(-1)!)}`);
    }
    const runs: Run[] = [];
    for (let pair = 0; pair < TRACING_PAIRS; pair++)
      for (const tracing of pair % 2 === 0 ? [false, true] : [true, false]) {
        const run = await ours(EQUAL, 'equal', {
          idle: false,
          warm: true,
          ...(tracing ? { otlpEndpoint: collector.endpoint } : {}),
        });
        runs.push(run);
        console.log(
          `${runName(run)}: ${fmt(workTotal(run, 'seconds'))} s, controller ` +
            `${fmt(workTotal(run, 'cpuSeconds'), 2)} CPU s, API ${fmt(workTotal(run, 'apiCpuSeconds'), 2)} CPU s, ` +
            `${run.reconciles ?? '?'} reconciles, GC ${fmt(run.gcSeconds ?? NaN, 2)} s`,
        );
      }
    console.log(`the collector received ${collector.spanCount()} spans`);
    if (warmed.length > 0) {
      const tracingMs = (costs: TracingCost[][]) =>
        costs.flat().reduce((sum, cost) => sum + cost.tracingMs, 0) / costs.length;
      console.log(
        `\nover the ${warmed.length} profiled runs, a controller just started: ${tracingCostLine(started.flat())}` +
          `\nwarmed: ${tracingCostLine(warmed.flat())}` +
          `\ntracing's CPU per converge: ${fmt(tracingMs(started), 0)} ms just started, ` +
          `${fmt(tracingMs(warmed), 0)} ms warmed\n`,
      );
    }
    if (runs.length > 0) {
      const started = runs.map((run) => ({ ...run, phases: run.firstPhases! }));
      console.log(tracingTable(started, 'just started: the first converge of each run').join('\n'));
      console.log(`\n${tracingTable(runs, 'warmed: the second converge of each run').join('\n')}`);
    }
  } finally {
    await collector.stop();
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], {});
    client.close();
  }
}

/** Code that runs only when tracing is on: the OpenTelemetry SDK and exporter, and our span makers. */
const isTracingCode = (where: string) =>
  where.startsWith('@opentelemetry/') || where === 'protobufjs' || where.startsWith('apps/api/tracing/');
/** The exporter's part of it: the SDK's HTTP exporter, and our OTLP encoder and the exporter around it. */
const isExportCode = (where: string) =>
  where.startsWith('@opentelemetry/otlp-') || where.startsWith('apps/api/tracing/otlp-');

/** Tracing's CPU in one phase's profile (ms): all of it, the exporter's part, and the phase's sampled total. */
interface TracingCost {
  phase: PhaseResult['phase'];
  totalMs: number;
  tracingMs: number;
  exportMs: number;
}

function tracingCosts(profiles: PhaseProfiles): TracingCost[] {
  return (Object.entries(profiles) as [PhaseResult['phase'], CpuProfile][]).map(([phase, profile]) => {
    const tracing = inclusiveMs(profile, isTracingCode);
    return {
      phase,
      totalMs: tracing.totalMs,
      tracingMs: tracing.ms,
      exportMs: inclusiveMs(profile, isExportCode).ms,
    };
  });
}

/** Tracing's share per phase, then over all of `costs` (its export part in brackets). */
function tracingCostLine(costs: TracingCost[]): string {
  const share = (ms: number, total: number) => `${fmt((ms / Math.max(total, 1)) * 100, 1)}%`;
  const sum = (of: TracingCost[], key: 'totalMs' | 'tracingMs' | 'exportMs') =>
    of.reduce((total, cost) => total + cost[key], 0);
  const shares = (of: TracingCost[]) =>
    `${share(sum(of, 'tracingMs'), sum(of, 'totalMs'))} (export ${share(sum(of, 'exportMs'), sum(of, 'totalMs'))})`;
  const phases = [...new Set(costs.map((cost) => cost.phase))].map(
    (phase) => `${phase} ${shares(costs.filter((cost) => cost.phase === phase))}`,
  );
  return (
    `tracing's share of the controller's CPU (the SDK, the exporter and our span makers, with all they ` +
    `called): ${phases.join(', ')}; all phases ${shares(costs)}`
  );
}

/** What tracing costs, from runs of ours with tracing on and off (alternating pairs), over the converge `which`. */
function tracingTable(runs: Run[], which: string): string[] {
  const side = (on: boolean) => runs.filter((run) => (run.tracing === true) === on);
  // The controller counts reconciles from its start: a run that converged twice ran about as many in each.
  const reconciles = (run: Run) => (run.reconciles ?? NaN) / (run.firstPhases ? 2 : 1);
  const figures = (on: boolean) => ({
    controller: side(on).map((run) => workTotal(run, 'cpuSeconds')),
    api: side(on).map((run) => workTotal(run, 'apiCpuSeconds')),
    seconds: side(on).map((run) => workTotal(run, 'seconds')),
    reconciles: side(on).map(reconciles),
    gc: side(on).map((run) => run.gcSeconds ?? NaN),
    // Per reconcile: a run that needed more reconciles (conflicts, retries) costs more CPU for it, traced or not.
    perReconcileMs: side(on).map((run) => (workTotal(run, 'cpuSeconds') / reconciles(run)) * 1000),
  });
  const [on, off] = [figures(true), figures(false)];
  return [
    `Tracing, on against off in ${runs.length / 2} alternating pairs (mean, and range, of ${on.controller.length} ` +
      `runs each, ${COUNT} × ${REPLICAS} pods: create + scale down + delete; goal ≤ 3 % CPU), ${which}:`,
    '',
    '| per converge | tracing on | tracing off | on vs off |',
    '| --- | --- | --- | --- |',
    comparisonRow('controller CPU s', on.controller, off.controller),
    comparisonRow('API process CPU s', on.api, off.api),
    comparisonRow('seconds', on.seconds, off.seconds),
    comparisonRow('reconciles', on.reconciles, off.reconciles, 0),
    comparisonRow('controller garbage collection s (from its start)', on.gc, off.gc),
    comparisonRow('controller CPU ms per reconcile', on.perReconcileMs, off.perReconcileMs, 3),
  ];
}

/** `--ours-only`: one unthrottled run of ours, printed; with `--profile`, also its profile results (above). */
async function oursOnly(): Promise<void> {
  const profiles: PhaseProfiles | undefined = PROFILE ? {} : undefined;
  const firstProfiles: PhaseProfiles | undefined = PROFILE && OURS_WARM ? {} : undefined;
  const collector = OURS_TRACED ? new TestCollector('basic') : undefined;
  try {
    await collector?.start();
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], limitsEnv(EQUAL));
    await sleep(5000); // the restarted scheduler's caches
    const run = await ours(OURS_EQUAL ? EQUAL : UNTHROTTLED, OURS_EQUAL ? 'equal' : 'unthrottled', {
      profiles,
      ...(OURS_WARM ? { warm: true } : {}),
      ...(firstProfiles ? { firstProfiles } : {}),
      idle: OURS_IDLE,
      audit: !NO_AUDIT,
      ...(TIMELINE === undefined ? {} : { timeline: TIMELINE }),
      ...(collector ? { otlpEndpoint: collector.endpoint } : {}),
    });
    console.log(
      run.phases
        .map(
          (p) =>
            `${p.phase} ${fmt(p.seconds)} s, ${fmt(p.cpuSeconds, 2)} CPU s` +
            `${p.apiCpuSeconds === undefined ? '' : ` (API ${fmt(p.apiCpuSeconds, 2)})`}, ${p.writes} writes`,
        )
        .join('; '),
    );
    console.log(
      `peak RSS ${fmt(run.peakRssMb, 0)} MiB (API ${fmt(run.api?.peakRssMb ?? 0, 0)}); CPU over the workload: ` +
        `controller ${fmt(workTotal(run, 'cpuSeconds'), 2)} s, API ${fmt(workTotal(run, 'apiCpuSeconds'), 2)} s`,
    );
    if (collector) console.log(`the collector received ${collector.spanCount()} spans`);
    if (!profiles) return;
    if (collector && firstProfiles)
      console.log(`first converge: ${tracingCostLine(tracingCosts(firstProfiles))}`);
    if (collector) console.log(tracingCostLine(tracingCosts(profiles)));
    const version = await client.request<{ gitVersion: string }>({ path: '/version' });
    writeProfileResults(profiles, runStamp(version.gitVersion));
  } finally {
    await collector?.stop();
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], {});
    client.close();
  }
}

/**
 * `--scale`: 10,000 pods, ours (restarted after the idle minute to time its initial sync) next to the ReplicaSet
 * controller, both unthrottled, and the limit. Writes bench/results/convergence-scale.{md,json,svg}.
 */
async function scale(): Promise<void> {
  const version = await client.request<{ gitVersion: string }>({ path: '/version' });
  const stamp = runStamp(version.gitVersion);
  const pods = COUNT * REPLICAS;
  console.log(`--scale: ${COUNT} objects × ${REPLICAS} replicas = ${pods} pods per run`);
  const runs: Run[] = [];
  let limitSeconds = 0;
  try {
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], limitsEnv(UNTHROTTLED));
    await sleep(5000);
    runs.push(await ours(UNTHROTTLED, 'unthrottled', { idle: true, resync: true }));
    console.log(`ours: ${runs[0]!.phases.map((p) => `${p.phase} ${fmt(p.seconds)} s`).join(', ')}`);
    runs.push(await replicaSets(UNTHROTTLED, 'unthrottled'));
    console.log(`ReplicaSets: ${runs[1]!.phases.map((p) => `${p.phase} ${fmt(p.seconds)} s`).join(', ')}`);
    const limitNamespace = await namespaceFor('limit');
    limitSeconds = await directPods(client, limitNamespace, pods);
    await deleteNamespace(limitNamespace);
  } finally {
    await restartComponents(['kube-scheduler', 'kube-controller-manager'], {});
    client.close();
  }
  const [mine, theirs] = runs as [Run, Run];
  const create = (r: Run) => r.phases.find((p) => p.phase === 'create')!.seconds;
  const sync = mine.initialSync;
  const markdown = [
    '# Convergence at scale: 10,000 pods',
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}: Kubernetes ${stamp.kubernetes} (local control plane, ` +
      `kwok nodes), Node.js ${process.version}, ${COUNT} objects × ${REPLICAS} replicas (${pods} pods) per run, both ` +
      `controllers (and kube-controller-manager's garbage collector, and the scheduler) unthrottled. Our controller ` +
      `is the app with the web UI off (WATCH_NAMESPACE set to the run's namespace, the audit trail on).`,
    '',
    `The limit — ${pods} pods created directly by a client with 64 requests in flight, until all ready: ` +
      `**${fmt(limitSeconds)} s**. Create time, ours over the ReplicaSet controller's: ` +
      `**${fmt(create(mine) / create(theirs), 2)}×**.`,
    '',
    table(runs, limitSeconds),
    '',
    sync
      ? `Initial sync: our controller restarted after the idle minute, with ${pods} pods and ${COUNT} Nginxes in ` +
        `place, was ready (every informer listed and synced) ${fmt(sync.seconds, 2)} s after it was started ` +
        `(${fmt(sync.afterListeningSeconds, 2)} s after it listened), holding ${fmt(sync.rssMb, 0)} MiB resident ` +
        `(peak ${fmt(sync.peakRssMb, 0)} MiB). kube-controller-manager's own sync is not timed here: it logs no ` +
        'time per controller.'
      : '',
    '',
    `The idle rows are ${IDLE_SECONDS} s with every pod in place: reads are the requests each controller sent ` +
      'meanwhile (zero means no polling; its watches stay open).',
    '',
    '![pods ready over time](convergence-scale.svg)',
    '',
  ].join('\n');
  writeResults('convergence-scale', markdown, {
    ...stamp,
    count: COUNT,
    replicas: REPLICAS,
    limitSeconds,
    runs,
  });
  writeFileSync(
    join(RESULTS_DIR, 'convergence-scale.svg'),
    readyChart(
      `${pods} pods ready over time, unthrottled`,
      runs.map((r, i) => ({
        label: r.controller,
        color: i === 0 ? '#0969da' : '#cf222e',
        points: r.readyOverTime,
      })),
      pods,
    ),
  );
}

/** Audit on and off in alternating pairs in the main run (AUDIT_PAIRS × 2 runs of each). */
const AUDIT_PAIRS = Number(process.env.BENCH_AUDIT_PAIRS ?? 2);

/** A run's total over the workload's phases (the idle stretch left out: only some runs have one). */
const workTotal = (run: Run, figure: 'seconds' | 'cpuSeconds' | 'apiCpuSeconds') =>
  run.phases.filter((p) => p.phase !== 'idle').reduce((sum, p) => sum + (p[figure] ?? 0), 0);

const mean = (values: number[]) => values.reduce((sum, v) => sum + v, 0) / Math.max(1, values.length);
const spread = (values: number[]) => `${fmt(Math.min(...values), 2)}–${fmt(Math.max(...values), 2)}`;
const percent = (value: number, reference: number) =>
  `${value >= reference ? '+' : ''}${fmt((value / reference - 1) * 100)}%`;

/** A table row of one figure on either side: each side's mean and range, and the first against the second. */
const comparisonRow = (what: string, a: number[], b: number[], digits = 2) =>
  `| ${what} | ${fmt(mean(a), digits)} (${spread(a)}) | ${fmt(mean(b), digits)} (${spread(b)}) | ${percent(mean(a), mean(b))} |`;

/** What recording costs, from runs of ours with the audit trail on and off (alternating pairs). */
function recordingTable(pairs: Run[]): string[] {
  const side = (on: boolean) => pairs.filter((r) => (r.audit !== false) === on);
  const cpu = (run: Run) => workTotal(run, 'cpuSeconds') + workTotal(run, 'apiCpuSeconds');
  const lines = (on: boolean) => {
    const rs = side(on);
    return {
      controller: rs.map((r) => workTotal(r, 'cpuSeconds')),
      api: rs.map((r) => workTotal(r, 'apiCpuSeconds')),
      both: rs.map(cpu),
      seconds: rs.map((r) => workTotal(r, 'seconds')),
      controllerRss: rs.map((r) => r.peakRssMb),
      apiRss: rs.map((r) => r.api?.peakRssMb ?? 0),
      database: rs.map((r) => r.databaseCpuSeconds ?? NaN),
    };
  };
  const [on, off] = [lines(true), lines(false)];
  return [
    `Recording, audit on against AUDIT=false in ${pairs.length / 2} alternating pairs (mean, and range, of ` +
      `${on.both.length} runs each, create + scale down + delete, no idle stretch; the audit trail on ` +
      `${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}; goal ≤ 10 % CPU):`,
    '',
    '| figure | audit on | audit off | on vs off |',
    '| --- | ---: | ---: | ---: |',
    comparisonRow('CPU s, controller + API', on.both, off.both),
    comparisonRow('CPU s, controller role', on.controller, off.controller),
    comparisonRow('CPU s, API role', on.api, off.api),
    ...(ON_POSTGRES
      ? [comparisonRow('CPU s, PostgreSQL server (the whole run)', on.database, off.database)]
      : []),
    comparisonRow('seconds to converge', on.seconds, off.seconds, 1),
    comparisonRow('peak RSS MiB, controller role', on.controllerRss, off.controllerRss, 0),
    comparisonRow('peak RSS MiB, API role', on.apiRss, off.apiRss, 0),
  ];
}

/**
 * The issue's goals, as this run measured them: the controller role alone at peak RSS ≤ kube-controller-manager's
 * and CPU ≤ 1.2× its (equal client limits, create + scale down + delete); recording (the audit trail and the
 * timeline, wherever it runs: the controller's reconcile records, the API's evidence and audit events) at ≤ 10 %
 * CPU over AUDIT=false, from the alternating pairs.
 */
function goalsOf(runs: Run[], pairs: Run[]): string[] {
  const ours = runs.find((r) => r.controller.includes('ours') && r.limits === 'equal' && r.audit && !r.web);
  const kcm = runs.find((r) => r.controller.includes('ReplicaSet') && r.limits === 'equal');
  if (!ours || !kcm) return [];
  const [oursCpu, kcmCpu] = [workTotal(ours, 'cpuSeconds'), workTotal(kcm, 'cpuSeconds')];
  return [
    '## Goals: the controller role next to kube-controller-manager, and what recording costs',
    '',
    `The controller role alone (ROLE=controller, equal client limits, audit on; create + scale down + delete): ` +
      `**${fmt(oursCpu, 2)} CPU s** against kube-controller-manager's ${fmt(kcmCpu, 2)} ` +
      `(**${fmt(oursCpu / kcmCpu, 2)}×**, goal ≤ 1.2×), peak RSS **${fmt(ours.peakRssMb, 0)} MiB** against ` +
      `${fmt(kcm.peakRssMb, 0)} (goal ≤); ${fmt(ours.idleRssMb ?? 0, 0)} MiB resident once its caches synced. Its API process beside it: ${fmt(ours.api?.idleRssMb ?? 0, 0)} MiB resident ` +
      `once ready, ${fmt(ours.api?.peakRssMb ?? 0, 0)} MiB at its peak, ${fmt(workTotal(ours, 'apiCpuSeconds'), 2)} CPU s.`,
    '',
    ...recordingTable(pairs),
  ];
}

async function main(): Promise<void> {
  if (OURS_ONLY) return oursOnly();
  if (TIMELINE_ONLY) return timelineOnly();
  if (AUDIT_ONLY) return auditOnly();
  if (TRACING_ONLY) return tracingOnly();
  if (SCALE) return scale();
  const version = await client.request<{ gitVersion: string }>({ path: '/version' });
  const stamp = runStamp(version.gitVersion);
  const pods = COUNT * REPLICAS;
  console.log(
    `${COUNT} objects × ${REPLICAS} replicas = ${pods} pods per run; Kubernetes ${version.gitVersion}`,
  );
  const runs: Run[] = [];
  const pairs: Run[] = [];
  const profiles: PhaseProfiles = {};
  let limitSeconds = 0;
  // With the audit log, kube-apiserver restarts with it now and without it at the end.
  const apiserver = AUDIT_LOG ? ['kube-apiserver'] : [];
  try {
    if (AUDIT_LOG) rmSync(AUDIT_LOG, { force: true });
    await restartComponents([...apiserver, 'kube-scheduler', 'kube-controller-manager'], {
      ...limitsEnv(EQUAL),
      ...(AUDIT_LOG ? { CLUSTER_AUDIT_LOG: AUDIT_LOG } : {}),
    });
    if (AUDIT_LOG) console.log(`kube-apiserver audit log: ${AUDIT_LOG}`);
    await sleep(5000); // the restarted scheduler's caches

    const logged = (run: Run, name: string) => {
      console.log(`${name}: ${run.phases.map((p) => `${p.phase} ${fmt(p.seconds)} s`).join(', ')}`);
      return run;
    };
    for (const [limits, label] of [
      [EQUAL, 'equal'],
      [UNTHROTTLED, 'unthrottled'],
    ] as const) {
      runs.push(logged(await ours(limits, label), `ours, ${label}`));
      runs.push(logged(await replicaSets(limits, label), `ReplicaSets, ${label}`));
    }
    // The audit trail on and off in alternating pairs (on, off, off, on…), so each run shows what recording
    // costs next to its noise.
    for (let pair = 0; pair < AUDIT_PAIRS; pair++)
      for (const audit of pair % 2 === 0 ? [false, true] : [true, false])
        pairs.push(
          logged(await ours(EQUAL, 'equal', { audit, idle: false }), `ours, audit ${audit ? 'on' : 'off'}`),
        );
    runs.push(...pairs);
    runs.push(logged(await ours(EQUAL, 'equal', { web: true }), 'ours, with the web UI'));
    // Profiled apart: the sampling costs CPU, which would blur the table's figures.
    logged(await ours(UNTHROTTLED, 'unthrottled', { profiles }), 'ours, profiled');

    const limitNamespace = await namespaceFor('limit');
    limitSeconds = await directPods(client, limitNamespace, pods);
    console.log(`limit: ${pods} pods created directly and ready in ${fmt(limitSeconds)} s`);
    await deleteNamespace(limitNamespace);
  } finally {
    // Back to the cluster's own defaults (and kube-apiserver without the audit log).
    await restartComponents(
      [...apiserver, 'kube-scheduler', 'kube-controller-manager'],
      AUDIT_LOG ? { CLUSTER_AUDIT_LOG: '' } : {},
    );
    client.close();
  }

  const goals = goalsOf(runs, pairs);
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
    ...goals,
    '',
    '![pods ready over time](convergence.svg)',
    '',
    "Where our controller's CPU goes, phase by phase, with flame graphs: " +
      '[convergence-profile.md](convergence-profile.md) (a profiled run of its own, not in the table).',
    '',
    ...(AUDIT_LOG
      ? [
          '## Writes by sender',
          '',
          `kube-apiserver ran with an audit log of its own (\`CLUSTER_AUDIT_LOG\`, level Metadata, writes of pods, the two kinds ` +
            `and Deployments): every write of pods and of the controller's kind received in the run's namespace during ` +
            `each phase, by who sent it (the user it authenticated as; the User-Agent too when it says more: our ` +
            `controller and the benchmark share the admin kubeconfig, the benchmark sends "${BENCH_AGENT}"), verb, ` +
            `resource and HTTP status. "of them counted" are the ones the "writes" column above counts (pods, and ` +
            `the kind's status); "writes in the audit log" above adds them up, for comparison with kube-apiserver's ` +
            `own count (the same window, in this namespace only). "to pods deleted in an earlier phase" are writes to ` +
            `pods whose first DELETE came before the phase began: the tail of the phase before. "after delete" are ` +
            `writes received in the ${AFTER_MS / 1000} s after the delete phase's figures were taken, which no phase ` +
            `counts.`,
          '',
          sendersTable(runs),
          '',
          'What the create and delete phases\' "writes" are made of (kube-apiserver\'s count in the window, then ' +
            "the audit log's, by sender):",
          '',
          senderSummary(runs),
          '',
          "Every pod's DELETE requests, in the order kube-apiserver received them, with their HTTP status " +
            '(pods: sequence), the scaled-down pods and the deleted ones:',
          '',
          deleteSequences(runs),
          '',
        ]
      : []),
  ].join('\n');
  writeProfileResults(profiles, stamp);
  writeResults('convergence', markdown, {
    ...stamp,
    count: COUNT,
    replicas: REPLICAS,
    limitSeconds,
    runs,
  });
  // The first run of each at equal limits (ours with the audit on and its idle stretch).
  const equalRuns = [
    runs.find((r) => r.controller.includes('ours') && r.limits === 'equal'),
    runs.find((r) => r.controller.includes('ReplicaSet') && r.limits === 'equal'),
  ].filter((r): r is Run => r !== undefined);
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
