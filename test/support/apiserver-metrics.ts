import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { API_SERVER, CLUSTER_DIR } from './paths.js';

/** Requests kube-apiserver has served, by "VERB resource[/subresource]", from its apiserver_request_total. */
export type RequestCounts = Map<string, number>;

const pki = join(CLUSTER_DIR, 'pki');
const dispatcher = new Agent({
  connect: {
    ca: readFileSync(join(pki, 'ca.crt')),
    cert: readFileSync(join(pki, 'admin.crt')),
    key: readFileSync(join(pki, 'admin.key')),
  },
});

const label = (labels: string, name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels)?.[1] ?? '';

/** Sums apiserver_request_total by a key made from each series' labels (series without a key are skipped). */
async function countRequests(
  keyOf: (labels: string) => string | undefined,
  server: string,
): Promise<RequestCounts> {
  const response = await request(`${server}/metrics`, { dispatcher });
  const text = await response.body.text();
  const counts: RequestCounts = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const key = keyOf(line.slice(line.indexOf('{') + 1, line.lastIndexOf('}')));
    if (key === undefined) continue;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
}

export function requestCounts(server = API_SERVER): Promise<RequestCounts> {
  return countRequests((labels) => {
    const subresource = label(labels, 'subresource');
    return `${label(labels, 'verb')} ${label(labels, 'resource')}${subresource ? `/${subresource}` : ''}`;
  }, server);
}

/**
 * Like requestCounts, keyed "VERB group/resource[/subresource] CODE" (group "" for the core API): tells apart
 * resources of the same name in two groups, such as core Events (controllers') and events.k8s.io Events (the
 * scheduler's), and answers by HTTP status, such as a DELETE of a pod already gone (404).
 */
export function requestCountsByGroup(server = API_SERVER): Promise<RequestCounts> {
  return countRequests((labels) => {
    const subresource = label(labels, 'subresource');
    const resource = `${label(labels, 'group')}/${label(labels, 'resource')}${subresource ? `/${subresource}` : ''}`;
    return `${label(labels, 'verb')} ${resource} ${label(labels, 'code')}`;
  }, server);
}

/** Pod creations kube-apiserver has answered, by HTTP status code ("201", "403", …). */
export function podCreatesByCode(server = API_SERVER): Promise<RequestCounts> {
  return countRequests(
    (labels) =>
      label(labels, 'verb') === 'POST' &&
      label(labels, 'resource') === 'pods' &&
      !label(labels, 'subresource')
        ? label(labels, 'code')
        : undefined,
    server,
  );
}

/**
 * Pod creations answered 201 and single-pod deletions answered 200, as "create" and "delete". A namespace's
 * deletion of all its pods at once (DELETECOLLECTION) is reported as a DELETE too, with scope "namespace": left out.
 */
export function podWrites(server = API_SERVER): Promise<RequestCounts> {
  return countRequests((labels) => {
    if (label(labels, 'resource') !== 'pods' || label(labels, 'group') || label(labels, 'subresource'))
      return;
    const [verb, code, scope] = [label(labels, 'verb'), label(labels, 'code'), label(labels, 'scope')];
    if (verb === 'POST' && code === '201') return 'create';
    if (verb === 'DELETE' && code === '200' && scope === 'resource') return 'delete';
    return undefined;
  }, server);
}

/** What happened between two readings, without the keys that did not move. */
export function difference(before: RequestCounts, after: RequestCounts): RequestCounts {
  const delta: RequestCounts = new Map();
  for (const [key, value] of after) {
    const moved = value - (before.get(key) ?? 0);
    if (moved > 0) delta.set(key, moved);
  }
  return delta;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'APPLY']);

export interface ControllerRequests {
  /** Pod creations, deletions and patches, and status writes of the controller's kind. */
  writes: number;
  /** Events written (the scheduler's "Scheduled" ones included: kube-apiserver cannot tell who wrote them). */
  events: number;
  /** Gets, lists and watches of pods and of the controller's kind. */
  reads: number;
  byKey: Record<string, number>;
}

/**
 * The requests a controller of `plural` causes: its pods' creations, deletions and patches, its status writes, its
 * reads of those, and Events. The objects themselves (created, scaled and deleted by the benchmark) and kwok's pod
 * status updates are left out.
 */
export function controllerRequests(delta: RequestCounts, plural: string): ControllerRequests {
  const result: ControllerRequests = { writes: 0, events: 0, reads: 0, byKey: {} };
  for (const [key, value] of delta) {
    const [verb, resource] = key.split(' ') as [string, string];
    const write = WRITES.has(verb);
    if (resource === 'events') {
      if (!write) continue;
      result.events += value;
    } else if (resource === 'pods' || resource === `${plural}/status`) {
      if (write) result.writes += value;
      else result.reads += value;
    } else if (resource === plural && !write) result.reads += value;
    else continue;
    result.byKey[key] = value;
  }
  return result;
}
