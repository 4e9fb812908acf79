// A rollout that changes leader half-way: the leader gets SIGTERM (graceful hand-over through the Lease) or
// SIGKILL (the standby waits out the Lease) while pods of both revisions exist. The bounds hold throughout, as a
// watch of the pods sees them, and the rollout ends exactly: `replicas` pods, all of the new revision.
import { afterAll, afterEach, describe, expect, it, onTestFailed } from 'vitest';
import type { NginxSpec } from '../libs/nginx-api/src/index.js';
import { isActive } from '../apps/api/src/controller/pod-plan.js';
import { HEADLESS, leaderAndStandby, startApp, type AppProcess } from './support/app-process.js';
import { createNamespace } from './support/operations.js';
import { revisionOfSpec, rolloutsIn } from './support/rollouts.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const controllers: AppProcess[] = [];

afterAll(() => client.close());

afterEach(async () => {
  for (const controller of controllers.splice(0)) await controller.kill();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function controller(ns: string): Promise<AppProcess> {
  const started = await startApp({ ...HEADLESS, WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  controllers.push(started);
  onTestFailed(() => console.log(`--- controller ${started.identity}:\n${started.output().slice(-5000)}`));
  return started;
}

describe('a rollout across a change of leader', () => {
  it.each([
    ['SIGTERM', (leader: AppProcess) => leader.terminate().then(() => undefined)],
    ['kill -9', (leader: AppProcess) => leader.kill()],
  ] as const)(
    'keeps maxSurge 2 / maxUnavailable 0 on 10 replicas when the leader gets %s mid-rollout',
    async (_, stopLeader) => {
      const ns = await createNamespace(client, 'roll-handover', cleanups);
      const rollouts = await rolloutsIn(client, ns);
      cleanups.push(rollouts.stop);
      const [leader, standby] = await leaderAndStandby(await controller(ns), await controller(ns));

      const name = uniqueName('handover');
      // minReadySeconds stretches each step to a second, so the hand-over lands mid-rollout.
      const spec: NginxSpec = {
        replicas: 10,
        image: 'nginx:1.27',
        minReadySeconds: 1,
        strategy: { rollingUpdate: { maxSurge: 2, maxUnavailable: 0 } },
      };
      await rollouts.create(name, spec);
      await rollouts.rolledOut(name, 10, revisionOfSpec(spec));
      const next = { ...spec, image: 'nginx:1.28' };
      const watch = rollouts.boundsWatch(name);
      await rollouts.patchSpec(name, { image: 'nginx:1.28' });
      const after = revisionOfSpec(next);
      await waitFor(
        'a few pods of the new revision',
        () =>
          rollouts
            .podsOf(name)
            .filter((p) => isActive(p) && p.metadata?.labels?.['mycompany.com/revision'] === after).length >=
          3,
        { intervalMs: 5 },
      );
      await stopLeader(leader);
      const done = await rollouts.rolledOut(name, 10, after, 120_000);
      watch.stop();

      expect(watch.seen.maxActive).toBeLessThanOrEqual(12);
      expect(watch.seen.minAvailableAfterDelete).toBeGreaterThanOrEqual(10);
      expect(done.status?.replicas).toBe(10);
      const readiness = await standby.readiness();
      expect(readiness.checks.controller.leader).toBe(true);
    },
    180_000,
  );
});
