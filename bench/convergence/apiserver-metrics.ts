import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { CLUSTER_DIR } from '../../test/support/paths.js';

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

export async function requestCounts(server = 'https://127.0.0.1:6443'): Promise<RequestCounts> {
  const response = await request(`${server}/metrics`, { dispatcher });
  const text = await response.body.text();
  const counts: RequestCounts = new Map();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_total{')) continue;
    const labels = line.slice(line.indexOf('{') + 1, line.lastIndexOf('}'));
    const subresource = label(labels, 'subresource');
    const key = `${label(labels, 'verb')} ${label(labels, 'resource')}${subresource ? `/${subresource}` : ''}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return counts;
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

const WRITES = ['POST', 'PUT', 'PATCH', 'DELETE'];

/**
 * The requests a controller of `kind` (its resource's plural) causes: its pods' creations and deletions, its status
 * writes, its Events, and its own reads of those. kwok's pod status updates and node heartbeats are left out.
 */
export function controllerRequests(
  delta: RequestCounts,
  plural: string,
): { total: number; writes: number; byKey: Record<string, number> } {
  const ours = (key: string) => {
    const [verb, resource] = key.split(' ') as [string, string];
    if (resource === 'pods')
      return verb === 'POST' || verb === 'DELETE' || verb === 'LIST' || verb === 'WATCH';
    if (resource === plural || resource === `${plural}/status`) return true;
    return resource === 'events';
  };
  const byKey: Record<string, number> = {};
  let total = 0;
  let writes = 0;
  for (const [key, value] of delta) {
    if (!ours(key)) continue;
    byKey[key] = value;
    total += value;
    if (WRITES.includes(key.split(' ')[0]!)) writes += value;
  }
  return { total, writes, byKey };
}
