import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { HEADLESS, metric, startApp, type AppProcess } from './support/app-process.js';
import {
  active,
  createNamedNamespace,
  deleteNamespace,
  nginxesIn,
  podRecorder,
} from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
// A namespace of its own, the only one its controllers watch (their Lease lives there too): other files run
// side by side.
const NS = uniqueName('resilience');
const nginx = nginxesIn(client, NS);
const WATCHED = { WATCH_NAMESPACE: NS } as const;
const apis: AppProcess[] = [];
const created: string[] = [];
const stops: (() => Promise<void>)[] = [];

async function createNginx(replicas: number): Promise<string> {
  const name = uniqueName('resilient');
  created.push(name);
  await nginx.create(name, replicas);
  return name;
}

/**
 * Exactly `count` running pods and a status that says so, and it stays there: nothing extra has arrived by the
 * time a marker Nginx created after it has been reconciled.
 */
async function exactly(name: string, count: number, timeoutMs = 30_000) {
  await nginx.converged(name, count, timeoutMs);
  await nginx.staysPastMarker(name, count);
}

beforeAll(() => createNamedNamespace(client, NS, {}));
afterAll(() => deleteNamespace(client, NS));

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  for (const api of apis.splice(0)) await api.stop();
  for (const name of created.splice(0)) await nginx.delete(name);
});

describe('the controller across crashes and instances', () => {
  it('ends with exactly the desired pods after a kill -9 in the middle of scaling 20 → 0 → 20', async () => {
    // Pod writes paced at 5 a second, so the scale-down takes seconds and the kill can land inside it.
    const env = { ...HEADLESS, ...WATCHED, LEADER_ELECTION: 'false', KUBE_API_QPS: '5', KUBE_API_BURST: '1' };
    const first = await startApp(env);
    apis.push(first);
    const name = await createNginx(20);
    await exactly(name, 20);
    const recorder = await podRecorder(client, NS, `mycompany.com/nginx=${name}`);
    stops.push(recorder.stop);
    expect(recorder.seen.size).toBe(20);

    // The kill lands when the watch has seen some of the deletions: an observed state, not a guess.
    await nginx.scale(name, 0);
    await waitFor('the first deletions', () => recorder.deleted.size >= 3, {
      timeoutMs: 30_000,
      intervalMs: 5,
    });
    await first.kill();
    // After the kill nothing more is sent: what kube-apiserver holds now is what the kill left. Mid-operation:
    // some pods were being deleted, others not yet.
    const left = active(await nginx.pods(name)).length;
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(20);
    await nginx.scale(name, 20);

    apis.push(await startApp(env));
    await exactly(name, 20);
    console.log(`kill -9 with ${left} of 20 pods not yet deleted; exactly 20 after the restart`);
  }, 120_000);

  it('lets only the leader act, and the other instance takes over when the leader dies', async () => {
    const env = { ...HEADLESS, ...WATCHED };
    const a = await startApp(env);
    const b = await startApp(env);
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

    await leader.kill();
    await nginx.scale(name, 4);
    await exactly(name, 4, 60_000); // lease duration 15 s + retry period 2 s, then the reconcile
    expect(await metric(follower, 'nginx_controller_leader')).toBe(1);
  }, 150_000);
});
