import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { runningAuditLog } from './cluster-processes.js';
import type { V1Pod } from '@kubernetes/client-node';
import type { KubeClient } from '../../libs/kube-runtime/src/index.js';
import { restartKubeApiServer } from './operations.js';
import { waitFor } from './wait.js';

/**
 * kube-apiserver's audit log (tools/cluster/up.sh with CLUSTER_AUDIT_LOG: JSON lines, level Metadata, one
 * ResponseComplete event per write of pods, Nginxes, ReplicaSets and Deployments): who sent which write, answered
 * how. kube-apiserver's metrics count requests by verb, resource and code, but cannot tell who sent them.
 */

/** The fields of an audit.k8s.io/v1 Event read here. */
export interface AuditEvent {
  stage: string;
  verb: string;
  user?: { username?: string };
  userAgent?: string;
  objectRef?: { resource?: string; subresource?: string; namespace?: string; name?: string };
  responseStatus?: { code?: number };
  requestReceivedTimestamp: string;
}

/** Writes one sender made during a window, by verb, resource[/subresource] and response code. */
export interface SenderWrites {
  sender: string;
  total: number;
  /** "verb resource[/subresource] code" → count, e.g. "delete pods 200". */
  byRequest: Record<string, number>;
  /** Of `total`, the writes `carriedOver` picked out (such as writes to pods whose deletion began before). */
  carriedOver: number;
}

/** How far the log has been written: a file offset, where a later read starts. 0 while there is no file. */
export function auditOffset(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * The events written from `from` (a file offset) up to `to` (default: the end of the file). A line cut short at
 * `to` (still being written) is left out, as is any line that is not JSON.
 */
export function readAuditEvents(path: string, from: number, to = auditOffset(path)): AuditEvent[] {
  if (to <= from) return [];
  const buffer = Buffer.alloc(to - from);
  const fd = openSync(path, 'r');
  try {
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, from + read);
      if (n === 0) break;
      read += n;
    }
  } finally {
    closeSync(fd);
  }
  const text = buffer.toString('utf8');
  const events: AuditEvent[] = [];
  for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
    if (!line) continue;
    try {
      events.push(JSON.parse(line) as AuditEvent);
    } catch {
      // a line cut at `from`: not ours to count
    }
  }
  return events;
}

/** The product of a User-Agent: "kube-controller-manager/v1.36.3 (linux/amd64) …" → "kube-controller-manager". */
const product = (userAgent: string) => /^[^/\s]+/.exec(userAgent)?.[0] ?? '';

/**
 * Who sent a request: the user it authenticated as, and the User-Agent's product when that says more (one
 * kubeconfig shared by several clients, such as the bench and our controller; kube-controller-manager, whose
 * controllers each have a service account, names the binary).
 */
export function sender(event: Pick<AuditEvent, 'user' | 'userAgent'>): string {
  const username = event.user?.username ?? '?';
  const agent = product(event.userAgent ?? '');
  return agent && !username.includes(agent) ? `${username} (${agent})` : username;
}

export const resourceOf = (event: AuditEvent) =>
  `${event.objectRef?.resource ?? '?'}${event.objectRef?.subresource ? `/${event.objectRef.subresource}` : ''}`;

/**
 * Counts the writes among `events` received in [fromMs, toMs) (epoch milliseconds; kube-apiserver runs on this
 * machine's clock), in `namespace` when given, of the resources `resources` lists ("pods", "pods/status", …), by
 * sender, then by verb, resource and response code; `carriedOver` picks out some of them to count apart. Senders
 * with the most writes first.
 */
export function writesBySender(
  events: AuditEvent[],
  window: { fromMs: number; toMs: number; namespace?: string },
  resources: ReadonlySet<string>,
  carriedOver: (event: AuditEvent) => boolean = () => false,
): SenderWrites[] {
  const bySender = new Map<string, SenderWrites>();
  for (const event of events) {
    if (event.stage !== 'ResponseComplete' && event.stage !== 'Panic') continue;
    const received = Date.parse(event.requestReceivedTimestamp);
    if (!(received >= window.fromMs && received < window.toMs)) continue;
    if (window.namespace !== undefined && event.objectRef?.namespace !== window.namespace) continue;
    const resource = resourceOf(event);
    if (!resources.has(resource)) continue;
    const who = sender(event);
    let entry = bySender.get(who);
    if (!entry) bySender.set(who, (entry = { sender: who, total: 0, byRequest: {}, carriedOver: 0 }));
    const key = `${event.verb} ${resource} ${event.responseStatus?.code ?? '?'}`;
    entry.total++;
    if (carriedOver(event)) entry.carriedOver++;
    entry.byRequest[key] = (entry.byRequest[key] ?? 0) + 1;
  }
  return [...bySender.values()].sort((a, b) => b.total - a.total || a.sender.localeCompare(b.sender));
}

/**
 * Makes kube-apiserver write its audit log: restarts it with one at `path` (CLUSTER_AUDIT_LOG) unless it already
 * writes one. Resolves with the log being written and a function that puts kube-apiserver back as it was; each
 * restart resolves only once pods run again.
 */
export async function withAuditLog(
  client: KubeClient,
  path: string,
): Promise<{ path: string; restore: () => Promise<void> }> {
  const running = runningAuditLog();
  if (running) return { path: running, restore: async () => {} };
  await restartKubeApiServer({ CLUSTER_AUDIT_LOG: path });
  await podsRunAgain(client);
  return {
    path,
    restore: async () => {
      await restartKubeApiServer({ CLUSTER_AUDIT_LOG: '' });
      await podsRunAgain(client);
    },
  };
}

/**
 * The audit log the running kube-apiserver writes, for a file that runs side by side with others and so must not
 * restart kube-apiserver itself: the integration projects' global setup (cluster-audit-log.setup.ts) starts it
 * with one.
 */
export function requireAuditLog(): string {
  const running = runningAuditLog();
  if (!running)
    throw new Error(
      'kube-apiserver writes no audit log: run this file through `npm test` or vitest’s integration projects, ' +
        'whose global setup restarts it with one (or start the cluster with CLUSTER_AUDIT_LOG)',
    );
  return running;
}

/**
 * After kube-apiserver restarted, waits until a probe pod runs: kube-scheduler's and kwok's watches back off for a
 * while after the restart (tens of seconds were seen), and pods created meanwhile wait for them.
 */
export async function podsRunAgain(client: KubeClient): Promise<void> {
  const pods = '/api/v1/namespaces/default/pods';
  const probe = await client.request<V1Pod>({
    method: 'POST',
    path: pods,
    body: { metadata: { generateName: 'probe-' }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
  });
  const path = `${pods}/${probe.metadata!.name}`;
  try {
    await waitFor(
      'a probe pod running after kube-apiserver restarted',
      async () => (await client.request<V1Pod>({ path })).status?.phase === 'Running',
      { timeoutMs: 180_000, intervalMs: 250 },
    );
  } finally {
    await client.request({ method: 'DELETE', path, query: { gracePeriodSeconds: 0 } }).catch(() => {});
  }
}
