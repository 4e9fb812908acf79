// Hand-over trials: the leader of two controller processes gets SIGTERM or SIGKILL at a random moment of a scale-up
// or a scale-down, and every pod created or deleted meanwhile is counted twice, by a watch of the namespace and by
// kube-apiserver's own audit log of that namespace, against what the change asked for. Used by the CI stress test
// (test/controller-handover-stress.test.ts) and by bench:handover, which runs kube-controller-manager's ReplicaSet
// controller through the same trials.
import { spawn, type ChildProcess } from 'node:child_process';
import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import type { KubeClient } from '../../libs/kube-runtime/src/index.js';
import { auditOffset, readAuditEvents, writesBySender } from './apiserver-audit-log.js';
import { FaultProxy } from '../chaos/support/fault-proxy.js';
import { HEADLESS, startApp, type AppProcess } from './app-process.js';
import { active, nginxesIn, running, type podRecorder } from './operations.js';
import { sleep, staysTrue, waitFor } from './wait.js';

export type Stop = 'SIGTERM' | 'SIGKILL';

/** One process of the controller under test. */
export interface Contender {
  readonly pid: number;
  /** Whether it holds the Lease now. */
  leading(): Promise<boolean>;
  /** Whether it could take over now (for ours: its caches are synced). */
  standingBy(): Promise<boolean>;
  /** Sends `stop` and resolves once the process has exited. */
  stop(stop: Stop): Promise<void>;
  /**
   * Holds back what its watches deliver by `ms` from now on, as on a loaded machine; for subjects whose processes
   * reach kube-apiserver through the test's proxy (ours).
   */
  lagWatches?(ms: number): void;
  output(): string;
}

/** The controller under test: how to start one more of its processes, and how to change and read its workload. */
export interface HandoverSubject {
  readonly name: string;
  readonly namespace: string;
  start(): Promise<Contender>;
  /** Sets the workload's replicas. */
  scale(replicas: number): Promise<void>;
  /** Whether exactly `replicas` pods are ready and the workload's status says so for its current spec. */
  converged(replicas: number): Promise<boolean>;
  /** Makes a write to the workload that changes nothing it acts on (an annotation), for the audit log to show. */
  mark(): Promise<void>;
  /** The workload's name, in the audit log's objectRef. */
  readonly workload: string;
}

/** The user kwok's requests authenticate as (tools/cluster/pki.sh). */
const KWOK_USER = 'kwok-controller';

/**
 * One trial: the leader is told to go from `from` to `to` replicas and gets `stop` `afterMs` later, while the
 * standby's watches lag `standbyLagMs` behind (where the subject can make them).
 */
export interface TrialPlan {
  from: number;
  to: number;
  stop: Stop;
  afterMs: number;
  standbyLagMs: number;
}

export interface PodCounts {
  created: number;
  deleted: number;
}

export interface TrialResult {
  plan: TrialPlan;
  /** What the change asks for: the difference between `to` and `from`, one way. */
  expected: PodCounts;
  /** Distinct pods first seen, and pods marked for deletion or gone, by a watch of the namespace. */
  watch: PodCounts;
  /**
   * kube-apiserver's own records, from its audit log of the workload's namespace (so that other namespaces' pods,
   * such as those of tests running meanwhile, are never counted): `created` is pod POSTs answered 201, `deleted` pod
   * DELETEs answered 200, kwok's left out. Its metrics could not serve: they count cluster-wide, and cannot tell a
   * controller's DELETE (which starts a pod's graceful deletion) from kwok's (which ends it, as a kubelet would;
   * kwok sometimes sends two for one pod). `cut` counts the controller's writes answered 5xx, such as
   * those of a process killed with requests in flight: kube-apiserver answers them 504 ("context canceled") yet
   * may have stored them, so each may or may not have happened.
   */
  apiserver: PodCounts & { cut: PodCounts };
  /** From the signal until the workload converged. */
  convergedMs: number;
  exact: boolean;
  /** What the two processes printed during the trial, and the pods it created and deleted. */
  output: { leader: string; standby: string; pods: string };
}

/** A small seeded PRNG (mulberry32), so that a run's trials can be replayed from its printed seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * `count` trials from 0 replicas: scale-ups and scale-downs of at least `minChange` pods in turn, to random sizes
 * up to `maxReplicas`; the stops take turns through `stops`; the signal comes at a random moment between the
 * change and about when the controller would have finished it (`msPerPod` a pod); the standby's watches lag by a
 * random time up to `maxStandbyLagMs`.
 */
export function trialPlans(
  seed: number,
  count: number,
  options: {
    maxReplicas: number;
    minChange: number;
    stops: Stop[];
    msPerPod: number;
    maxStandbyLagMs: number;
  },
): TrialPlan[] {
  const random = seededRandom(seed);
  const between = (low: number, high: number) => low + Math.floor(random() * (high - low + 1));
  const plans: TrialPlan[] = [];
  let replicas = 0;
  for (let i = 0; i < count; i++) {
    const up =
      replicas + options.minChange <= options.maxReplicas && (i % 2 === 0 || replicas < options.minChange);
    const to = up
      ? between(replicas + options.minChange, options.maxReplicas)
      : between(0, replicas - options.minChange);
    // Two trials (one up, one down) per kind of stop in turn, so each kind meets both directions.
    const stop = options.stops[Math.floor(i / 2) % options.stops.length]!;
    plans.push({
      from: replicas,
      to,
      stop,
      afterMs: between(0, 200 + Math.abs(to - replicas) * options.msPerPod),
      standbyLagMs: between(0, options.maxStandbyLagMs),
    });
    replicas = to;
  }
  return plans;
}

type Recorder = Awaited<ReturnType<typeof podRecorder>>;

/** Waits until one of the two leads and the other could take over; resolves with [leader, standby]. */
export function leaderOf(a: Contender, b: Contender, timeoutMs = 60_000): Promise<[Contender, Contender]> {
  return waitFor(
    'one leader and one standby',
    async () => {
      const [aLeads, bLeads] = await Promise.all([a.leading(), b.leading()]);
      if (aLeads === bLeads) return false;
      const [leader, standby] = aLeads ? [a, b] : [b, a];
      return (await standby.standingBy()) && ([leader, standby] as [Contender, Contender]);
    },
    { timeoutMs, intervalMs: 100 },
  );
}

/**
 * Runs one trial with `leader` and `standby` (from leaderOf), counting in `recorder`'s namespace. Resolves once the
 * workload converged, no pod is left terminating, and the stopped process was replaced by a new standby: with the
 * result, and the pair for the next trial.
 */
export async function runTrial(
  subject: HandoverSubject,
  [leader, standby]: [Contender, Contender],
  plan: TrialPlan,
  recorder: Recorder,
  auditLog: string,
  timeoutMs = 180_000,
): Promise<{ result: TrialResult; next: [Contender, Contender] }> {
  const before = {
    seen: recorder.seen.size,
    gone: recorder.deleted.size,
    auditOffset: auditOffset(auditLog),
    at: Date.now(),
  };
  const outputBefore = { leader: leader.output().length, standby: standby.output().length };
  leader.lagWatches?.(0);
  standby.lagWatches?.(plan.standbyLagMs);
  await subject.scale(plan.to);
  await sleep(plan.afterMs);
  const signalled = performance.now();
  const stopped = leader.stop(plan.stop);
  const printed = () =>
    `--- the leader:\n${leader.output().slice(outputBefore.leader)}\n` +
    `--- the standby:\n${standby.output().slice(outputBefore.standby)}`;
  await waitFor(
    `${subject.name} at ${plan.to} replicas after ${plan.stop}`,
    () => subject.converged(plan.to),
    {
      timeoutMs,
      intervalMs: 50,
    },
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message}\n${printed()}`);
  });
  const convergedMs = Math.round(performance.now() - signalled);
  await stopped;
  // The stopped process's replacement starts while the trial is counted, once the standby leads (a workload can
  // converge before the signal took effect): it must find the Lease held, and only stand by.
  const replacement = waitFor('the standby to lead', () => standby.leading(), {
    timeoutMs: 60_000,
    intervalMs: 100,
  }).then(() => subject.start());
  replacement.catch(() => {}); // awaited below
  // Terminating pods are gone (their second DELETE counted), and nothing extra arrives a moment later.
  await waitFor('no pod left terminating', () => recorder.cache.size === plan.to, { timeoutMs: 60_000 });
  await staysTrue(
    `${subject.name} at ${plan.to} replicas after converging`,
    async () => recorder.cache.size === plan.to && (await subject.converged(plan.to)),
    1000,
  ).catch((error: unknown) => {
    throw new Error(`${(error as Error).message} (${recorder.cache.size} pods)`);
  });
  const audited = await auditedPodWrites(subject, auditLog, before);
  const expected = { created: Math.max(0, plan.to - plan.from), deleted: Math.max(0, plan.from - plan.to) };
  const watch = { created: recorder.seen.size - before.seen, deleted: recorder.deleted.size - before.gone };
  const apiserver = audited;
  const within = (answered: number, cut: number, wanted: number) =>
    answered <= wanted && wanted <= answered + cut;
  const exact =
    watch.created === expected.created &&
    watch.deleted === expected.deleted &&
    within(apiserver.created, apiserver.cut.created, expected.created) &&
    within(apiserver.deleted, apiserver.cut.deleted, expected.deleted);
  const newPods = [...recorder.seen.values()].slice(before.seen);
  const output = {
    leader: leader.output().slice(outputBefore.leader),
    standby: standby.output().slice(outputBefore.standby),
    pods: [
      ...newPods.map((p) => `created ${p.metadata?.name} at ${String(p.metadata?.creationTimestamp)}`),
      ...[...recorder.deleted]
        .slice(before.gone)
        .map((uid) => `deleted ${recorder.seen.get(uid)?.metadata?.name}`),
    ].join('\n'),
  };
  const result = { plan, expected, watch, apiserver, convergedMs, exact, output };

  const next = await leaderOf(standby, await replacement);
  if (next[0] !== standby) throw new Error('the new process leads, not the standby that took over');
  return { result, next };
}

/**
 * The pod creations (201) and deletions (200) in kube-apiserver's audit log since `since` (a file offset and the
 * moment it was taken), in the workload's namespace, by anyone but kwok, and those answered 5xx (`cut`). Waits for the log to show a marker write
 * made now (the log is written a moment after each answer), so that nothing of the trial is still to come.
 */
async function auditedPodWrites(
  subject: HandoverSubject,
  path: string,
  since: { auditOffset: number; at: number },
): Promise<PodCounts & { cut: PodCounts }> {
  const markedAt = Date.now();
  await subject.mark();
  const events = await waitFor(
    'the marker write in kube-apiserver’s audit log',
    () => {
      const read = readAuditEvents(path, since.auditOffset);
      return (
        read.some(
          (e) =>
            e.verb === 'patch' &&
            e.objectRef?.name === subject.workload &&
            Date.parse(e.requestReceivedTimestamp) >= markedAt - 5,
        ) && read
      );
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const writers = writesBySender(
    events,
    { fromMs: since.at, toMs: markedAt, namespace: subject.namespace },
    new Set(['pods']),
  ).filter((writes) => !writes.sender.startsWith(KWOK_USER));
  const count = (match: (request: string) => boolean) =>
    writers.reduce(
      (sum, writes) =>
        sum + Object.entries(writes.byRequest).reduce((n, [key, value]) => n + (match(key) ? value : 0), 0),
      0,
    );
  const cut = (verb: string) => count((key) => key.startsWith(`${verb} pods 5`));
  return {
    created: count((key) => key === 'create pods 201'),
    deleted: count((key) => key === 'delete pods 200'),
    cut: { created: cut('create'), deleted: cut('delete') },
  };
}

/**
 * kube-apiserver counts requests cluster-wide: waits until no namespace is being deleted and no pod anywhere is
 * terminating (the namespace controller's and kwok's DELETEs would be counted as the trial's), so that every pod
 * request counted during a trial that starts now is the trial's.
 */
export async function quietCluster(client: KubeClient, timeoutMs = 300_000): Promise<void> {
  await waitFor(
    'no namespace being deleted and no pod terminating, cluster-wide',
    async () => {
      const [namespaces, pods] = await Promise.all([
        client.request<{ items: V1Namespace[] }>({ path: '/api/v1/namespaces' }),
        client.request<{ items: V1Pod[] }>({ path: '/api/v1/pods' }),
      ]);
      return (
        namespaces.items.every((n) => n.status?.phase !== 'Terminating') &&
        pods.items.every((p) => !p.metadata?.deletionTimestamp)
      );
    },
    { timeoutMs, intervalMs: 500 },
  );
}

/** One line for a trial, as the test and the benchmark print it. */
export function describeTrial(
  index: number,
  { plan, watch, apiserver, convergedMs, exact }: TrialResult,
): string {
  const change = `${plan.from} → ${plan.to}`;
  return (
    `#${index + 1} ${change.padEnd(11)} ${plan.stop.padEnd(7)} after ${String(plan.afterMs).padStart(4)} ms, ` +
    `standby ${String(plan.standbyLagMs).padStart(4)} ms behind: ` +
    `watch +${watch.created}/-${watch.deleted}, kube-apiserver +${apiserver.created}/-${apiserver.deleted}` +
    (apiserver.cut.created + apiserver.cut.deleted > 0
      ? ` (cut with the process: +${apiserver.cut.created}/-${apiserver.cut.deleted})`
      : '') +
    ', ' +
    `converged ${convergedMs} ms after the signal${exact ? '' : '  ← NOT EXACT'}`
  );
}

/**
 * The busy neighbour's loop: every 100 ms it looks at how much CPU the machine left idle over the last 100 ms,
 * counting its own use as idle, and spins through the next 100 ms when that was at least half a core, or sleeps.
 */
const BUSY_NEIGHBOUR = `
const { readFileSync } = require('node:fs');
const { availableParallelism } = require('node:os');
const cores = availableParallelism();
const ticks = () => {
  const fields = readFileSync('/proc/stat', 'utf8').split('\\n')[0].trim().split(/\\s+/).slice(1).map(Number);
  return { idle: fields[3] + fields[4], total: fields.reduce((a, b) => a + b, 0) };
};
const own = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e4; };
let last = { ...ticks(), own: own() };
const step = () => {
  const now = { ...ticks(), own: own() };
  const idleCores = ((now.idle - last.idle + (now.own - last.own)) / Math.max(1, now.total - last.total)) * cores;
  last = now;
  if (idleCores < 0.5) return setTimeout(step, 100);
  const until = Date.now() + 100;
  while (Date.now() < until);
  setImmediate(step);
};
step();
`;

/**
 * A process that keeps the machine loaded, as a busy neighbour would, until the returned function stops it: so
 * that races that need a slow moment get one. It takes a core whenever the machine would leave one idle (alone,
 * that is all the time) and backs off while other work keeps the cores busy, such as the integration files that
 * run beside the hand-over stress test: the load is the same, and it adds none where there is plenty.
 */
export function busyNeighbour(): () => Promise<void> {
  const child: ChildProcess = spawn(process.execPath, ['-e', BUSY_NEIGHBOUR], { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return async () => {
    child.kill('SIGKILL');
    await exited;
  };
}

/**
 * Our controller as a trial subject: app processes (HEADLESS) watching only `namespace`, with their Lease there and
 * `env` over the defaults (e.g. the lease timings), and the Nginx `name` in it (which the caller creates). Each
 * process reaches kube-apiserver through a FaultProxy of its own, which can hold back its watches.
 */
export function nginxSubject(
  client: KubeClient,
  namespace: string,
  name: string,
  env: Record<string, string> = {},
): HandoverSubject & { processes: AppProcess[]; close(): Promise<void> } {
  const nginx = nginxesIn(client, namespace);
  const processes: AppProcess[] = [];
  const proxies: FaultProxy[] = [];
  let marks = 0;
  return {
    name: `Nginx ${namespace}/${name}`,
    namespace,
    workload: name,
    processes,
    async mark() {
      await client.request({
        method: 'PATCH',
        path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes/${name}`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { annotations: { 'handover-trials/mark': String((marks += 1)) } } },
      });
    },
    async start() {
      const proxy = await new FaultProxy().start();
      proxies.push(proxy);
      const app = await startApp({
        ...HEADLESS,
        WATCH_NAMESPACE: namespace,
        INSTALL_CRD: 'false',
        KUBECONFIG: proxy.kubeconfig(),
        ...env,
      });
      processes.push(app);
      return {
        lagWatches: (ms) => void (proxy.watchLagMs = ms),
        pid: app.pid,
        leading: async () => !app.exited() && (await app.readiness()).checks.controller.leader,
        standingBy: async () => !app.exited() && (await app.readiness()).checks.controller.ok,
        stop: async (stop) => {
          if (stop === 'SIGKILL') await app.kill();
          else await app.terminate(30_000);
        },
        output: app.output,
      };
    },
    async scale(replicas) {
      await nginx.scale(name, replicas);
    },
    async close() {
      for (const app of processes) await app.kill();
      for (const proxy of proxies) await proxy.close();
    },
    async converged(replicas) {
      const [pods, current] = await Promise.all([nginx.pods(name), nginx.get(name)]);
      return (
        active(pods).length === replicas &&
        running(pods).length === replicas &&
        current.status?.readyReplicas === replicas &&
        current.status?.replicas === replicas &&
        current.status?.observedGeneration === current.metadata.generation
      );
    },
  };
}
