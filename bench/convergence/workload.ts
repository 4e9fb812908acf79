import type { V1Pod } from '@kubernetes/client-node';
import { isActive } from '../../apps/api/src/controller/pod-plan.js';
import { SharedInformer, type KubeClient, type KubeObject } from '../../libs/kube-runtime/src/index.js';
import { controllerRequests, difference, requestCounts } from '../../test/support/apiserver-metrics.js';
import {
  auditOffset,
  readAuditEvents,
  resourceOf,
  sender,
  writesBySender,
  type AuditEvent,
  type SenderWrites,
} from '../../test/support/apiserver-audit-log.js';
import { cpuSeconds } from './process-stats.js';
import { sleep } from '../../test/support/wait.js';

/** What differs between the two controllers' objects: the resource, and how to ask for N replicas of nginx. */
export interface WorkloadKind {
  kind: string;
  group: string;
  plural: string;
  collection: (namespace: string) => string;
  manifest: (name: string, replicas: number) => unknown;
}

const template = (name: string) => ({
  metadata: { labels: { app: 'bench', owner: name } },
  spec: {
    containers: [{ name: 'nginx', image: 'nginx:latest', ports: [{ name: 'http', containerPort: 80 }] }],
  },
});

export const NGINX: WorkloadKind = {
  kind: 'Nginx',
  group: 'mycompany.com',
  plural: 'nginxes',
  collection: (ns) => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`,
  manifest: (name, replicas) => ({
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name },
    spec: { replicas },
  }),
};

export const REPLICA_SET: WorkloadKind = {
  kind: 'ReplicaSet',
  group: 'apps',
  plural: 'replicasets',
  collection: (ns) => `/apis/apps/v1/namespaces/${ns}/replicasets`,
  manifest: (name, replicas) => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: 'bench', owner: name } }, template: template(name) },
  }),
};

type Owner = KubeObject & {
  spec?: { replicas?: number };
  status?: { replicas?: number; readyReplicas?: number };
};
type Pod = V1Pod & KubeObject;

const isReady = (pod: V1Pod) =>
  !pod.metadata?.deletionTimestamp &&
  pod.status?.phase === 'Running' &&
  (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

export interface PhaseResult {
  phase: 'create' | 'scale down' | 'delete' | 'idle';
  seconds: number;
  /** Requests the controller caused, by "VERB resource" (from kube-apiserver's metrics). */
  requests: Record<string, number>;
  writes: number;
  events: number;
  reads: number;
  podsCreated: number;
  cpuSeconds: number;
  /** The CPU of the API process (ROLE=api) beside the controller during the phase, when there is one. */
  apiCpuSeconds?: number;
  /** With an audit log: where the phase starts in it (file offset) and when it ran (epoch ms). */
  audit?: { offset: number; fromMs: number; toMs: number };
  /**
   * With an audit log: the writes of pods (and their status) and of the kind (and its status) received during
   * the phase, by sender — whoever sent them: the controller, the garbage collector, kwok, the benchmark.
   */
  writesBySender?: SenderWrites[];
}

/** Watches one namespace's pods and workload objects from the bench process (cheap, no polling of the API). */
export async function observe(client: KubeClient, kind: WorkloadKind, namespace: string) {
  const pods = new SharedInformer<Pod>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace },
    kind: 'Pod',
  });
  const owners = new SharedInformer<Owner>({
    client,
    resource: { group: kind.group, version: 'v1', plural: kind.plural, namespace },
    kind: kind.kind,
  });
  let created = 0;
  pods.addEventHandler({ add: (_, initial) => void (initial || created++) });
  const abort = new AbortController();
  const runs = [pods.run(abort.signal), owners.run(abort.signal)];
  await Promise.all([pods.waitForCacheSync(), owners.waitForCacheSync()]);
  return {
    ready: () => pods.cache.list().filter(isReady).length,
    active: () => pods.cache.list().filter(isActive).length,
    total: () => pods.cache.size,
    podsCreated: () => created,
    settled: (replicas: number, count: number) =>
      owners.cache.size === count &&
      owners.cache
        .list()
        .every((o) => o.status?.replicas === replicas && (o.status?.readyReplicas ?? 0) === replicas) &&
      pods.cache.list().filter(isActive).length === count * replicas &&
      pods.cache.list().filter(isReady).length === count * replicas,
    stop: async () => {
      abort.abort();
      await Promise.all(runs);
    },
  };
}

async function until(what: string, done: () => boolean, timeoutMs: number, tick?: () => void): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    tick?.();
    await sleep(100);
  }
}

async function all(count: number, concurrency: number, work: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await work(next++);
    }),
  );
}

/**
 * Creates `count` objects of `replicas` pods, scales them to half, deletes them, timing each phase until the
 * cluster shows it done, with the API requests and CPU of the controller (process `pid`) during it. The create
 * phase also samples ready pods over time, and is followed by an idle stretch of `idleSeconds`.
 */
export async function runWorkload(options: {
  client: KubeClient;
  kind: WorkloadKind;
  namespace: string;
  count: number;
  replicas: number;
  pid: () => number;
  /** An API process (ROLE=api) beside the controller, whose CPU each phase reports too. */
  apiPid?: () => number;
  idleSeconds: number;
  timeoutMs?: number;
  /** kube-apiserver's audit log (CLUSTER_AUDIT_LOG), to tell who sent each write of each phase. */
  auditLog?: string;
  /** Called as each phase starts (before its first request) and once it is done (e.g. to profile it). */
  around?: {
    start: (phase: PhaseResult['phase']) => Promise<unknown>;
    end: (phase: PhaseResult['phase']) => Promise<unknown>;
  };
}): Promise<{
  phases: PhaseResult[];
  readyOverTime: [number, number][];
  afterPhases?: SenderWrites[];
  deleteSequences?: Record<string, number>;
}> {
  const { client, kind, namespace, count, replicas, pid, apiPid, idleSeconds, auditLog, around } = options;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const names = Array.from({ length: count }, (_, i) => `bench-${i}`);
  const seen = await observe(client, kind, namespace);
  const phases: PhaseResult[] = [];
  const readyOverTime: [number, number][] = [];

  const measure = async (
    phase: PhaseResult['phase'],
    act: () => Promise<unknown>,
    done: () => boolean,
    sample?: (t: number) => void,
  ) => {
    const [requestsBefore, cpuBefore, apiCpuBefore, podsBefore] = [
      await requestCounts(),
      cpuSeconds(pid()),
      apiPid ? cpuSeconds(apiPid()) : 0,
      seen.podsCreated(),
    ];
    // The audit window spans the two metrics readings, so its figures and kube-apiserver's can be compared.
    const audit = auditLog ? { offset: auditOffset(auditLog), fromMs: Date.now(), toMs: 0 } : undefined;
    await around?.start(phase);
    const started = performance.now();
    await act();
    await until(`${kind.plural} ${phase} in ${namespace}`, done, timeoutMs, () =>
      sample?.((performance.now() - started) / 1000),
    );
    const seconds = (performance.now() - started) / 1000;
    sample?.(seconds);
    const requests = controllerRequests(difference(requestsBefore, await requestCounts()), kind.plural);
    if (audit) audit.toMs = Date.now();
    phases.push({
      phase,
      seconds,
      requests: requests.byKey,
      writes: requests.writes,
      events: requests.events,
      reads: requests.reads,
      podsCreated: seen.podsCreated() - podsBefore,
      cpuSeconds: cpuSeconds(pid()) - cpuBefore,
      ...(apiPid ? { apiCpuSeconds: cpuSeconds(apiPid()) - apiCpuBefore } : {}),
      ...(audit ? { audit } : {}),
    });
    await around?.end(phase); // after the figures: a restart here must not land in them
  };

  try {
    await measure(
      'create',
      () =>
        all(count, 32, (i) =>
          client.request({
            method: 'POST',
            path: kind.collection(namespace),
            body: kind.manifest(names[i]!, replicas),
          }),
        ),
      () => seen.settled(replicas, count),
      (t) => {
        if (!readyOverTime.length || t - readyOverTime.at(-1)![0] >= 0.2)
          readyOverTime.push([t, seen.ready()]);
      },
    );
    if (idleSeconds > 0)
      await measure(
        'idle',
        () => sleep(idleSeconds * 1000),
        () => true,
      );
    const half = Math.floor(replicas / 2);
    await measure(
      'scale down',
      () =>
        all(count, 32, (i) =>
          client.request({
            method: 'PATCH',
            path: `${kind.collection(namespace)}/${names[i]}`,
            contentType: 'application/merge-patch+json',
            body: { spec: { replicas: half } },
          }),
        ),
      () => seen.settled(half, count),
    );
    await measure(
      'delete',
      () =>
        all(count, 32, (i) =>
          client.request({ method: 'DELETE', path: `${kind.collection(namespace)}/${names[i]}` }),
        ),
      () => seen.total() === 0,
    );
  } finally {
    await seen.stop();
  }
  if (!auditLog) return { phases, readyOverTime };
  await sleep(AFTER_MS);
  return { phases, readyOverTime, ...attribute(auditLog, kind, namespace, phases) };
}

/**
 * How long after the last phase writes are still looked for (a retry that came late, after the cluster showed
 * the phase done); also time for kube-apiserver's background worker (batch mode) to write the last events.
 */
export const AFTER_MS = 5000;

/**
 * Fills in each phase's writes in `namespace` by sender from the audit log, and returns those received after the
 * last phase ended (by the time this runs). Writes to a pod whose first DELETE (by anyone) was received before the
 * phase began are counted apart as carried over: the tail of an earlier phase (kwok finalising pods the scale-down
 * marked for deletion, which that phase does not wait for), not work the phase caused. Also returns how many
 * pods had each sequence of DELETEs (JSON of [sender, code] pairs in the order received → pods), over the run.
 */
function attribute(
  auditLog: string,
  kind: WorkloadKind,
  namespace: string,
  phases: PhaseResult[],
): { afterPhases?: SenderWrites[]; deleteSequences?: Record<string, number> } {
  const windows = phases.flatMap((p) => (p.audit ? [p.audit] : []));
  if (!windows.length) return {};
  const events = readAuditEvents(auditLog, windows[0]!.offset);
  const deletes = new Map<string, [string, number | undefined][]>();
  for (const event of events) {
    const name = event.objectRef?.name;
    if (event.verb !== 'delete' || resourceOf(event) !== 'pods' || !name) continue;
    if (event.objectRef?.namespace !== namespace) continue;
    deletes.set(name, [...(deletes.get(name) ?? []), [sender(event), event.responseStatus?.code]]);
  }
  const deleteSequences: Record<string, number> = {};
  for (const sequence of deletes.values()) {
    const key = JSON.stringify(sequence);
    deleteSequences[key] = (deleteSequences[key] ?? 0) + 1;
  }
  const resources = new Set(['pods', 'pods/status', kind.plural, `${kind.plural}/status`]);
  const firstDelete = new Map<string, number>();
  for (const event of events) {
    const name = event.objectRef?.name;
    if (event.verb !== 'delete' || resourceOf(event) !== 'pods' || !name || firstDelete.has(name)) continue;
    firstDelete.set(name, Date.parse(event.requestReceivedTimestamp));
  }
  const carriedOver = (fromMs: number) => (event: AuditEvent) =>
    resourceOf(event).startsWith('pods') &&
    (firstDelete.get(event.objectRef?.name ?? '') ?? Infinity) < fromMs;
  for (const phase of phases)
    if (phase.audit)
      phase.writesBySender = writesBySender(
        events,
        { ...phase.audit, namespace },
        resources,
        carriedOver(phase.audit.fromMs),
      );
  const fromMs = windows.at(-1)!.toMs;
  const afterPhases = writesBySender(
    events,
    { fromMs, toMs: Infinity, namespace },
    resources,
    carriedOver(fromMs),
  );
  return { afterPhases, deleteSequences };
}

/**
 * The limit: `total` pods created directly by a tight client at full concurrency, timed until all are ready.
 */
export async function directPods(client: KubeClient, namespace: string, total: number, concurrency = 64) {
  const seen = await observe(client, NGINX, namespace);
  const started = performance.now();
  try {
    await all(total, concurrency, (i) =>
      client.request({
        method: 'POST',
        path: `/api/v1/namespaces/${namespace}/pods`,
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `direct-${i}`, ...template('direct').metadata },
          spec: template('direct').spec,
        },
      }),
    );
    await until('every direct pod ready', () => seen.ready() === total, 600_000);
    return (performance.now() - started) / 1000;
  } finally {
    await seen.stop();
  }
}
