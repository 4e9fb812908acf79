import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { CLUSTER_DIR } from '../../test/support/paths.js';
import type { RequestCounts } from '../../test/support/apiserver-metrics.js';
import type { RolloutKind } from './kinds.js';
import type { PodsSeen } from './observer.js';

const WRITE_VERBS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY', 'DELETECOLLECTION']);

/** The kinds of writes a controller makes in a rollout, as the results list them. */
export const WRITE_KINDS = [
  'pod creates',
  'pod deletes',
  'pod updates',
  'status writes',
  'ReplicaSet / ControllerRevision writes',
  'other owned objects',
  'object updates',
  'events',
] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

export interface ControllerWrites {
  /** Writes the controller made, by kind. */
  byKind: Record<WriteKind, number>;
  total: number;
  /** The same, by "VERB group/resource[/subresource] CODE" (group "" for the core API). */
  byKey: Record<string, number>;
  /** Writes of the window that are not the controller's, by who made them. */
  notCounted: Record<string, number>;
}

/**
 * Splits what kube-apiserver counted during a rollout (requestCountsByGroup before and after: `delta`) into the
 * rolling controller's writes and the rest. apiserver_request_total has no label for the client, so each write is
 * put down to its writer by verb and resource, the one side under test running alone on the cluster:
 *
 * - the bench: one merge patch of each object (`imagePatches`), the image change itself;
 * - kube-scheduler: pod bindings, and its Events, which it writes through events.k8s.io (controllers write core
 *   Events);
 * - kwok, the kubelet here: pod status, node status and leases, and two DELETEs of each terminating pod (its
 *   pod-delete stage): the final one, and a second one, which mostly finds the pod gone (404) and sometimes races
 *   the first (200). (Deleting pods with one DELETE each and no controller: 2 more per pod, 1 of them 404.) The
 *   pod watch counts the pods removed after being marked terminating (`pods.removedAfterTerminating`); twice that
 *   many are taken off the pod DELETEs, 404s first;
 * - the controller: every other write of pods, of its kind's status (and of ReplicaSets, Deployments' status and
 *   ControllerRevisions), of ConfigMaps, Services and PodDisruptionBudgets, and core Events.
 *
 * Writes of any other resource are listed as not counted.
 */
export function controllerWrites(
  delta: RequestCounts,
  kind: RolloutKind,
  imagePatches: number,
  pods: PodsSeen,
): ControllerWrites {
  const byKind = Object.fromEntries(WRITE_KINDS.map((k) => [k, 0])) as Record<WriteKind, number>;
  const byKey: Record<string, number> = {};
  const notCounted: Record<string, number> = {};
  const count = (what: WriteKind, key: string, n: number) => {
    if (n <= 0) return;
    byKind[what] += n;
    byKey[key] = (byKey[key] ?? 0) + n;
  };
  const other = (who: string, n: number) => {
    if (n > 0) notCounted[who] = (notCounted[who] ?? 0) + n;
  };
  const own = `${kind.group}/${kind.plural}`;

  // kwok's DELETEs yet to be taken off: two per pod it removed, from the 404s first, then from the 2xx answers.
  let kwokDeletes = 2 * pods.removedAfterTerminating;
  let benchPatches = imagePatches;
  const answer = (key: string) => key.split(' ')[2] ?? '';
  const entries = [...delta].sort(([a], [b]) => Number(answer(a) !== '404') - Number(answer(b) !== '404'));
  for (const [key, n] of entries) {
    const [verb, resource, code = ''] = key.split(' ') as [string, string, string?];
    if (!WRITE_VERBS.has(verb)) continue;
    if (resource === '/pods') {
      if (verb === 'POST') count('pod creates', key, n);
      else if (verb === 'DELETE') {
        const kwok = code === '404' || code.startsWith('2') ? Math.min(n, kwokDeletes) : 0;
        kwokDeletes -= kwok;
        other('kwok: two DELETEs of each terminating pod', kwok);
        count('pod deletes', key, n - kwok);
      } else count('pod updates', key, n);
    } else if (resource === '/pods/binding') other('kube-scheduler: pod bindings', n);
    else if (resource === 'events.k8s.io/events') other('kube-scheduler: events.k8s.io Events', n);
    else if (resource === '/pods/status') other('kwok: pod status', n);
    else if (resource === '/nodes/status' || resource === 'coordination.k8s.io/leases')
      other('kwok: node status and leases', n);
    else if (resource === '/events') count('events', key, n);
    else if (resource === `${own}/status` || resource === 'apps/replicasets/status')
      count('status writes', key, n);
    else if (resource === 'apps/replicasets' || resource === 'apps/controllerrevisions')
      count('ReplicaSet / ControllerRevision writes', key, n);
    else if (
      resource === '/configmaps' ||
      resource === '/services' ||
      resource === 'policy/poddisruptionbudgets' ||
      resource === 'networking.k8s.io/ingresses' ||
      resource === 'argoproj.io/analysisruns'
    )
      count('other owned objects', key, n);
    else if (resource === own) {
      const bench = verb === 'PATCH' && code.startsWith('2') ? Math.min(n, benchPatches) : 0;
      benchPatches -= bench;
      other('the bench: the image patch of each object', bench);
      count('object updates', key, n - bench);
    } else other(`not attributed: ${key}`, n);
  }
  const total = Object.values(byKind).reduce((a, b) => a + b, 0);
  return { byKind, total, byKey, notCounted };
}

// kube-controller-manager's own count of its requests (all its controllers), from its /metrics: a check on the
// attribution above. Its serving certificate is self-signed (--cert-dir), so that file is the CA to trust.
const pki = join(CLUSTER_DIR, 'pki');
const kcmCertificate = join(pki, 'kcm-generated', 'kube-controller-manager.crt');
let kcmDispatcher: Agent | undefined;

/**
 * Requests kube-controller-manager (every controller it runs) has sent, by HTTP method, from its
 * rest_client_requests_total; undefined when its /metrics cannot be read.
 */
export async function kcmClientRequests(port = 10257): Promise<Record<string, number> | undefined> {
  try {
    if (!existsSync(kcmCertificate)) return undefined;
    kcmDispatcher ??= new Agent({
      connect: {
        ca: readFileSync(kcmCertificate),
        cert: readFileSync(join(pki, 'admin.crt')),
        key: readFileSync(join(pki, 'admin.key')),
        servername: 'localhost',
      },
    });
    const response = await request(`https://127.0.0.1:${port}/metrics`, { dispatcher: kcmDispatcher });
    if (response.statusCode !== 200) {
      await response.body.dump();
      return undefined;
    }
    const byMethod: Record<string, number> = {};
    for (const line of (await response.body.text()).split('\n')) {
      if (!line.startsWith('rest_client_requests_total{')) continue;
      const method = /method="([^"]*)"/.exec(line)?.[1] ?? '';
      byMethod[method] = (byMethod[method] ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
    }
    return byMethod;
  } catch {
    return undefined;
  }
}

/** What moved between two readings of a counter by key. */
export function moved(
  before: Record<string, number> | undefined,
  after: Record<string, number> | undefined,
): Record<string, number> | undefined {
  if (!before || !after) return undefined;
  return Object.fromEntries(
    Object.entries(after)
      .map(([key, value]) => [key, value - (before[key] ?? 0)] as const)
      .filter(([, value]) => value > 0),
  );
}

/** Writes (POST, PUT, PATCH, DELETE) among requests by method. */
export const writesOf = (byMethod: Record<string, number> | undefined) =>
  byMethod &&
  Object.entries(byMethod)
    .filter(([method]) => WRITE_VERBS.has(method))
    .reduce((sum, [, n]) => sum + n, 0);
