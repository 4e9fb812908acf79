// npm run bench:fanout [-- --quick] — reports, never asserts. Needs the local cluster.
// Live fan-out: CLIENTS watcher processes (bench/fanout/client.mjs, one per simulated browser tab) while NGINXES
// Nginxes of PODS_EACH replicas are scaled up from 0, so every pod turns Running once; each client learns of all
// of them. Two rounds on the same control plane and the same workload:
//   1. ours: each client holds the app's live gateway (socket.io) with a namespace subscription and one per Nginx;
//   2. reference: each client holds its own watch of the namespace's pods on kube-apiserver (its watch cache's
//      fan-out, the Kubernetes component that does the same job).
// A pod's change is the first moment any process of the round learned it is Running (an idle probe watching
// kube-apiserver, or any client); its delivery to a client is the moment that client learned it, on the same
// clock. Server CPU is read from /proc for the app and kube-apiserver over each round.
// With --profile, the app's CPU profile of the socket.io round goes to .data/profile/fanout.cpuprofile, with its
// flame graph and largest costs next to it (the figures of a profiled run carry the sampler's cost).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { V1Pod } from '@kubernetes/client-node';
import { readPid } from '../test/support/cluster-processes.js';
import { nginxManifest, startControlPlane, TOKENS } from '../test/support/control-plane.js';
import { KUBECONFIG_PATH, ROOT } from '../test/support/paths.js';
import { runtimeClient } from '../test/support/runtime.js';
import { waitFor } from '../test/support/wait.js';
import { createObjects } from './cluster-fixtures.js';
import { freePort, inspectorProfiler } from './convergence/cpu-profile.js';
import { cpuSeconds, peakRssMb, rssMb } from './convergence/process-stats.js';
import { HEADLESS, startApp } from '../test/support/app-process.js';
import { quantile, wholeMs } from './latency-stats.js';
import { saveProfile } from './profile-summary.js';
import { runStamp, writeResults } from './results-file.js';

const QUICK = process.argv.includes('--quick');
const PROFILE = process.argv.includes('--profile');
const CLIENTS = Number(process.env.BENCH_FANOUT_CLIENTS ?? (QUICK ? 20 : 100));
const NGINXES = 10;
const PODS_EACH = Number(process.env.BENCH_FANOUT_PODS_EACH ?? (QUICK ? 20 : 100));
const PODS = NGINXES * PODS_EACH;
/** The gateway allows 20 live connections per token: the clients share tokens of ten viewers. */
const VIEWERS = Array.from({ length: Math.ceil(CLIENTS / 10) }, (_, i) => ({
  name: `fanout-viewer-${i}`,
  token: `fanout-viewer-token-${i}-0123456789abcdef`,
}));
const CLIENT_SCRIPT = join(ROOT, 'bench/fanout/client.mjs');
const client = runtimeClient({ qps: 2000, burst: 2000 });

interface Report {
  seen: Record<string, number>;
  changes: number;
  messages: number;
  resyncs: number;
}

/** A client process, driven over its stdin and stdout. */
class Watcher {
  private readonly lines: ((line: string) => void)[] = [];
  readonly ready: Promise<void>;
  private readonly process: ChildProcess;
  get pid(): number {
    return this.process.pid!;
  }

  constructor(args: string[]) {
    this.process = spawn(process.execPath, [CLIENT_SCRIPT, ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    createInterface({ input: this.process.stdout! }).on('line', (line) => this.lines.shift()?.(line));
    const exited = new Promise<never>((_, reject) =>
      this.process.once('exit', (code) => reject(new Error(`a client exited (${code})`))),
    );
    exited.catch(() => {});
    this.ready = Promise.race([this.nextLine().then(() => undefined), exited]);
  }

  async report(): Promise<Report> {
    const line = this.nextLine();
    this.process.stdin!.write('report\n');
    return JSON.parse(await line) as Report;
  }

  stop(): void {
    this.process.stdin!.write('exit\n');
    setTimeout(() => this.process.kill('SIGKILL'), 2000).unref();
  }

  private nextLine(): Promise<string> {
    return new Promise((resolve) => this.lines.push(resolve));
  }
}

interface RoundFigures {
  clients: number;
  pods: number;
  /** Client × pod pairs where the client learned that the pod is Running. */
  delivered: number;
  expected: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** Changes of pods and Nginxes the clients received in all, and in how many messages (socket.io `changes`
   * events, or watch events). */
  changes: number;
  messages: number;
  /** CPU seconds of the client processes over the round. */
  clientsCpuSeconds: number;
  resyncs: number;
  /** The API process's (the live gateway's). */
  appCpuSeconds: number;
  /** The controller process's, making the pods. */
  controllerCpuSeconds: number;
  /** The API process's most resident memory so far, at the end of the round (VmHWM). */
  apiPeakRssMb: number;
  apiserverCpuSeconds: number;
  seconds: number;
}

async function main(): Promise<void> {
  const namespace = `bench-fanout-${Date.now().toString(36)}`;
  const names = Array.from({ length: NGINXES }, (_, i) => `fan-${i}`);
  await createObjects(
    client,
    namespace,
    `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`,
    NGINXES,
    (i) => nginxManifest(names[i]!, 0),
  );
  const authTokens = [
    ...VIEWERS.map((v) => `${v.name}:viewer:${v.token}`),
    `ada-viewer:viewer:${TOKENS.viewer}`,
  ].join(',');
  const inspectPort = await freePort();
  // As deployed: the live gateway in an API process (ROLE=api), the pods made by a controller process beside it.
  const cp = await startControlPlane({
    ...(PROFILE ? { NODE_OPTIONS: `--inspect=127.0.0.1:${inspectPort}` } : {}),
    ROLE: 'api',
    WATCH_NAMESPACE: namespace,
    RATE_LIMIT_RPS: '1000',
    AUTH_TOKENS: authTokens,
  });
  const controller = await startApp({
    ...HEADLESS,
    ROLE: 'controller',
    LEADER_ELECTION: 'false',
    WATCH_NAMESPACE: namespace,
  });
  await waitFor('the API process ready', async () => (await cp.readiness()).ready, { timeoutMs: 60_000 });
  const apiIdleRssMb = rssMb(cp.pid);
  const apiserver = readPid('kube-apiserver');
  const probe = new Watcher(['watch', KUBECONFIG_PATH, namespace]);
  const pods = () =>
    client.request<{ items: V1Pod[] }>({ path: `/api/v1/namespaces/${namespace}/pods` }).then((l) => l.items);
  const scaleAll = (replicas: number) =>
    Promise.all(
      names.map((name) =>
        client.request({
          method: 'PATCH',
          path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes/${name}`,
          contentType: 'application/merge-patch+json',
          body: { spec: { replicas } },
        }),
      ),
    );

  const profiler = PROFILE ? await inspectorProfiler(inspectPort) : undefined;
  const round = async (clientArgs: (i: number) => string[], profile = false): Promise<RoundFigures> => {
    const watchers = Array.from({ length: CLIENTS }, (_, i) => new Watcher(clientArgs(i)));
    try {
      await Promise.all([probe.ready, ...watchers.map((w) => w.ready)]);
      await Promise.all([probe, ...watchers].map((w) => w.report())); // forget the start
      const started = performance.now();
      const clientsCpu = () => watchers.reduce((sum, w) => sum + cpuSeconds(w.pid), 0);
      const [app0, api0, clients0, controller0] = [
        cpuSeconds(cp.pid),
        cpuSeconds(apiserver),
        clientsCpu(),
        cpuSeconds(controller.pid),
      ];
      if (profile) await profiler?.start();
      await scaleAll(PODS_EACH);
      const reports: Report[] = [];
      const all = () => reports.every((r, i) => i === 0 || Object.keys(r.seen).length >= PODS);
      // Until every client has learned of every pod (or two minutes went by).
      await waitFor(
        `${CLIENTS} clients to learn of ${PODS} Running pods`,
        async () => {
          const latest = await Promise.all([probe, ...watchers].map((w) => w.report()));
          latest.forEach((r, i) => {
            const into = (reports[i] ??= { seen: {}, changes: 0, messages: 0, resyncs: 0 });
            Object.assign(into.seen, r.seen);
            into.changes += r.changes;
            into.messages += r.messages;
            into.resyncs += r.resyncs;
          });
          return Object.keys(reports[0]!.seen).length >= PODS && all();
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
      ).catch((error: unknown) => console.warn(String(error)));
      const seconds = (performance.now() - started) / 1000;
      const [app1, api1, clients1, controller1] = [
        cpuSeconds(cp.pid),
        cpuSeconds(apiserver),
        clientsCpu(),
        cpuSeconds(controller.pid),
      ];
      const apiPeakRssMb = peakRssMb(cp.pid);
      if (profile && profiler)
        saveProfile('fanout', `The app, live fan-out to ${CLIENTS} clients`, await profiler.stop());
      const origin = new Map<string, number>();
      for (const r of reports)
        for (const [uid, at] of Object.entries(r.seen)) origin.set(uid, Math.min(origin.get(uid) ?? at, at));
      const latencies = reports
        .slice(1)
        .flatMap((r) => Object.entries(r.seen).map(([uid, at]) => at - origin.get(uid)!));
      return {
        clients: CLIENTS,
        pods: origin.size,
        delivered: latencies.length,
        expected: CLIENTS * PODS,
        p50Ms: quantile(latencies, 0.5),
        p95Ms: quantile(latencies, 0.95),
        maxMs: Math.max(...latencies),
        changes: reports.slice(1).reduce((sum, r) => sum + r.changes, 0),
        messages: reports.slice(1).reduce((sum, r) => sum + r.messages, 0),
        clientsCpuSeconds: clients1 - clients0,
        resyncs: reports.slice(1).reduce((sum, r) => sum + r.resyncs, 0),
        appCpuSeconds: app1 - app0,
        controllerCpuSeconds: controller1 - controller0,
        apiPeakRssMb,
        apiserverCpuSeconds: api1 - api0,
        seconds,
      };
    } finally {
      for (const watcher of watchers) watcher.stop();
      await scaleAll(0);
      await waitFor('every pod to be gone', async () => (await pods()).length === 0, {
        timeoutMs: 180_000,
        intervalMs: 500,
      });
    }
  };

  try {
    await probe.ready;
    console.log(`${CLIENTS} clients, ${NGINXES} Nginxes × ${PODS_EACH} pods in ${namespace}`);
    const ours = await round(
      (i) => ['socket', cp.url, VIEWERS[i % VIEWERS.length]!.token, namespace, names.join(',')],
      true,
    );
    console.log('socket.io round done');
    const reference = await round(() => ['watch', KUBECONFIG_PATH, namespace]);
    const version = await client.request<{ gitVersion: string }>({ path: '/version' });
    const stamp = runStamp(version.gitVersion);
    const row = (label: string, r: RoundFigures) =>
      `| ${label} | ${r.delivered} of ${r.expected} | ${wholeMs(r.p50Ms)} | ${wholeMs(r.p95Ms)} | ${wholeMs(r.maxMs)} | ` +
      `${r.changes} in ${r.messages} | ${r.resyncs} | ${r.appCpuSeconds.toFixed(1)} | ${r.controllerCpuSeconds.toFixed(1)} | ` +
      `${r.apiserverCpuSeconds.toFixed(1)} | ${r.clientsCpuSeconds.toFixed(1)} | ${r.seconds.toFixed(1)} |`;
    const markdown = [
      `# Live fan-out: ${CLIENTS} client processes, ${PODS} pods turning Running`,
      '',
      `Run ${stamp.date} at ${stamp.commit}; Kubernetes ${stamp.kubernetes}, Node.js ${stamp.node}; ` +
        `\`npm run bench:fanout${QUICK ? ' -- --quick' : ''}\`.`,
      '',
      `${NGINXES} Nginxes of ${PODS_EACH} replicas scaled up from 0 by our controller (a \`ROLE=controller\` process); ` +
        'the live gateway is an API process (`ROLE=api`, `WEB_MODE=off`), as deployed. ' +
        "Latency: from the first moment any process of the round learned a pod is Running (an idle probe's watch on " +
        'kube-apiserver, or a client) to the moment each client learned it. CPU: seconds used by the process over ' +
        'the round.',
      '',
      `The API process's resident memory: ${apiIdleRssMb.toFixed(0)} MiB once ready and idle, ` +
        `${ours.apiPeakRssMb.toFixed(0)} MiB at its peak by the end of the socket.io round.`,
      '',
      '| clients learn each pod is Running | deliveries | p50 ms | p95 ms | max ms | changes in messages | resyncs | API process CPU s | controller CPU s | kube-apiserver CPU s | clients CPU s | round s |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      row(`ours: socket.io, ${NGINXES + 1} subscriptions per client (the namespace and each Nginx)`, ours),
      row("reference: each client's own watch of the pods on kube-apiserver", reference),
      '',
      `Gateway's cost: the API process's CPU in the socket.io round minus the reference round (same caches): ` +
        `${(ours.appCpuSeconds - reference.appCpuSeconds).toFixed(1)} s for ${ours.changes} changes in ${ours.messages} messages.`,
      '',
    ].join('\n');
    writeResults('fanout', markdown, { ...stamp, apiIdleRssMb, ours, reference });
  } finally {
    probe.stop();
    profiler?.close();
    await cp.stop();
    await controller.stop();
    await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
    client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
