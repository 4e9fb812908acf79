import type { V1Pod } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import type { Nginx } from '../libs/nginx-api/src/index.js';
import { startApi, type ApiProcess } from './support/api-process.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const nginxes = '/apis/mycompany.com/v1/namespaces/default/nginxes';
const apis: ApiProcess[] = [];
const created: string[] = [];

async function activePods(name: string): Promise<V1Pod[]> {
  const list = await client.request<{ items: V1Pod[] }>({
    path: '/api/v1/namespaces/default/pods',
    query: { labelSelector: `mycompany.com/nginx=${name}` },
  });
  return list.items.filter((p) => !p.metadata?.deletionTimestamp && p.status?.phase !== 'Failed');
}

const scale = (name: string, replicas: number) =>
  client.request({
    method: 'PATCH',
    path: `${nginxes}/${name}`,
    contentType: 'application/merge-patch+json',
    body: { spec: { replicas } },
  });

async function createNginx(replicas: number): Promise<string> {
  const name = uniqueName('resilient');
  created.push(name);
  await client.request({
    method: 'POST',
    path: nginxes,
    body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name }, spec: { replicas } },
  });
  return name;
}

async function exactly(name: string, count: number, timeoutMs = 30_000) {
  await waitFor(
    `${name} at exactly ${count} pods`,
    async () => {
      const [pods, nginx] = await Promise.all([
        activePods(name),
        client.request<Nginx>({ path: `${nginxes}/${name}` }),
      ]);
      return (
        pods.length === count &&
        pods.every((p) => p.status?.phase === 'Running') &&
        nginx.status?.readyReplicas === count
      );
    },
    { timeoutMs, intervalMs: 200 },
  );
  // And it stays there: nothing extra arrives later.
  await new Promise((resolve) => setTimeout(resolve, 1500));
  expect(await activePods(name)).toHaveLength(count);
}

async function metric(api: ApiProcess, name: string): Promise<number> {
  const text = await (await fetch(`${api.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ')[1]) : 0;
}

afterEach(async () => {
  for (const api of apis.splice(0)) await api.stop();
  for (const name of created.splice(0))
    await client.request({ method: 'DELETE', path: `${nginxes}/${name}` }).catch(() => {});
});

describe('the controller across crashes and instances', () => {
  it('ends with exactly the desired pods after a kill -9 in the middle of scaling 20 → 0 → 20', async () => {
    const env = { WEB_MODE: 'off', DATABASE_URL: 'file::memory:', LEADER_ELECTION: 'false' };
    const first = await startApi(env);
    apis.push(first);
    const name = await createNginx(20);
    await exactly(name, 20);

    await scale(name, 0);
    await new Promise((resolve) => setTimeout(resolve, 100)); // some deletions sent, some not
    await first.crash();
    await scale(name, 20);

    apis.push(await startApi(env));
    await exactly(name, 20);
  }, 120_000);

  it('lets only the leader act, and the other instance takes over when the leader dies', async () => {
    const env = { WEB_MODE: 'off', DATABASE_URL: 'file::memory:' };
    const a = await startApi(env);
    const b = await startApi(env);
    apis.push(a, b);
    await waitFor(
      'one leader',
      async () =>
        (await metric(a, 'nginx_controller_leader')) + (await metric(b, 'nginx_controller_leader')) === 1,
      {
        timeoutMs: 40_000,
        intervalMs: 250,
      },
    );
    const [leader, follower] = (await metric(a, 'nginx_controller_leader')) === 1 ? [a, b] : [b, a];

    const name = await createNginx(2);
    await exactly(name, 2);
    expect(await metric(follower, 'nginx_pods_created_total')).toBe(0);
    expect(await metric(leader, 'nginx_pods_created_total')).toBeGreaterThanOrEqual(2);

    await leader.crash();
    await scale(name, 4);
    await exactly(name, 4, 60_000); // lease duration 15 s + retry period 2 s, then the reconcile
    expect(await metric(follower, 'nginx_controller_leader')).toBe(1);
  }, 150_000);
});
