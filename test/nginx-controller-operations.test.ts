// Runs alone: restarts kube-apiserver, and its controllers watch every namespace.
// Operational scenarios for the Nginx controller on the local cluster: a kube-apiserver restart, a ResourceQuota
// that refuses pods, which pods a scale-down picks, and a graceful SIGTERM that hands the Lease over at once.
// Each test has its own namespace (its Nginx, its pods, its quota or limit range and its controller Lease), so it
// neither fights other test files' controllers for the `default/nginx-controller` Lease nor sees their objects.
import type { V1Lease, V1Pod, V1ResourceQuota } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { SharedInformer, type KubeObject } from '../libs/kube-runtime/src/index.js';
import type { Nginx, NginxCondition } from '../libs/nginx-api/src/index.js';
import { clusterScript, isAlive, readPid } from './support/cluster-processes.js';
import { HEADLESS, leaderAndStandby, metric, startApp, type AppProcess } from './support/app-process.js';
import {
  active,
  createNamespace,
  createPodQuota,
  names,
  nginxesIn,
  podRecorder,
  restartKubeApiServer,
  running,
} from './support/operations.js';
import { migrate, sqliteDatabase } from './support/database.js';
import { quietCluster } from './support/handover-trials.js';
import { errorLines } from './support/log-lines.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const controllers: AppProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const controller of controllers.splice(0)) {
    const exit = await controller.terminate();
    if (exit.killed) await controller.kill();
  }
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(() => client.close());

/** A controller with leader election on (the default) whose Lease lives in `leaseNamespace`. */
async function controller(leaseNamespace: string, env: Record<string, string> = {}): Promise<AppProcess> {
  const started = await startApp({ ...HEADLESS, LEASE_NAMESPACE: leaseNamespace, ...env });
  controllers.push(started);
  onTestFailed(() => console.log(`--- controller ${started.identity}:\n${started.output()}`));
  return started;
}

/** controller() with an audit database of its own, migrated (HEADLESS's in-memory one has no tables to write). */
async function auditedController(leaseNamespace: string): Promise<AppProcess> {
  const database = await sqliteDatabase();
  await migrate(database.url);
  return controller(leaseNamespace, { DATABASE_URL: database.url });
}

async function leading(controller: AppProcess): Promise<void> {
  await waitFor(
    `${controller.identity} to lead with synced caches`,
    async () => {
      const { checks } = await controller.readiness();
      return checks.controller.ok && checks.controller.leader;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}

const condition = (nginx: Nginx, type: string): NginxCondition | undefined =>
  nginx.status?.conditions?.find((c) => c.type === type);

/** Records every version of the Leases in a namespace, with when the watch delivered it. */
async function leaseRecorder(namespace: string) {
  const informer = new SharedInformer<V1Lease & KubeObject>({
    client,
    resource: { group: 'coordination.k8s.io', version: 'v1', plural: 'leases', namespace },
    kind: 'Lease',
  });
  const history: {
    at: number;
    holder: string;
    durationSeconds?: number;
    transitions?: number;
    /** The Lease's own times (as the holder wrote them), in ms since the epoch. */
    renewTime?: number;
    acquireTime?: number;
  }[] = [];
  const time = (value: Date | string | undefined) => (value ? Date.parse(String(value)) : undefined);
  const record = (lease: V1Lease) =>
    history.push({
      at: Date.now(),
      holder: lease.spec?.holderIdentity ?? '',
      durationSeconds: lease.spec?.leaseDurationSeconds,
      transitions: lease.spec?.leaseTransitions,
      renewTime: time(lease.spec?.renewTime),
      acquireTime: time(lease.spec?.acquireTime),
    });
  informer.addEventHandler({ add: record, update: (_, lease) => record(lease) });
  const abort = new AbortController();
  const run = informer.run(abort.signal);
  cleanups.push(async () => {
    abort.abort();
    await run;
  });
  await informer.waitForCacheSync();
  return history;
}

// It runs first among the lone files, right after the side-by-side ones: their namespaces (one with 1,000 Nginxes)
// are still being deleted, and its convergence times should not include that.
beforeAll(() => quietCluster(client), 310_000);

describe('the Nginx controller in operation', () => {
  it('converges to exactly 8 pods when scaled after a kube-apiserver restart in the middle of a scale-up', async () => {
    const ns = await createNamespace(client, 'ops-restart', cleanups);
    const nginx = nginxesIn(client, ns);
    // Pod writes paced (20 a second, one at a time) so the restart lands while the scale-up is still under way: asserted below.
    const ctl = await controller(ns, { KUBE_API_QPS: '20', KUBE_API_BURST: '1' });
    await leading(ctl);

    const name = uniqueName('restart');
    await nginx.create(name, 5);
    cleanups.push(() => nginx.delete(name));
    const podsAtRestart = await waitFor(
      'the first pod',
      async () => (await nginx.pods(name)).length || false,
      {
        intervalMs: 10,
      },
    );

    expect(podsAtRestart, 'the restart must land in the middle of the scale-up').toBeLessThan(5);
    let restart: { stopMs: number; downMs: number };
    try {
      restart = await restartKubeApiServer();
    } catch (error) {
      if (!isAlive(readPid('kube-apiserver'))) await clusterScript('up').catch(() => {});
      throw error;
    }

    // The first requests after the restart may still meet a connection the old server closed: retry the patch.
    const patchedAt = Date.now();
    await waitFor('the scale to 8 accepted', () => nginx.scale(name, 8).then(() => true), {
      timeoutMs: 30_000,
    });
    const final = await nginx.converged(name, 8, 90_000);
    const convergeMs = Date.now() - patchedAt;
    await nginx.staysPastMarker(name, 8);

    expect(final.spec.replicas).toBe(8);
    expect(condition(final, 'Available')?.status).toBe('True');
    expect(condition(final, 'ReplicaFailure')).toBeUndefined();
    expect(ctl.exited()).toBeUndefined();
    expect((await fetch(`${ctl.url}/healthz`)).status).toBe(200);
    await leading(ctl); // still (or again) the leader, caches synced
    const output = ctl.output();
    console.log(
      `apiserver restart: SIGTERM with ${podsAtRestart}/5 pods created; stopped in ${restart.stopMs} ms, back after ` +
        `${restart.downMs} ms; 8 Running + readyReplicas 8 ${convergeMs} ms after the patch; ` +
        `leadership ${output.includes('lost leadership') ? 'lost and regained' : 'kept'}`,
    );
  }, 240_000);

  it('reports ReplicaFailure with the quota error while a ResourceQuota refuses pods, and recovers when raised', async () => {
    const ns = await createNamespace(client, 'ops-quota', cleanups);
    const nginx = nginxesIn(client, ns);
    const quotaPath = await createPodQuota(client, ns, 2);
    const ctl = await controller(ns);
    await leading(ctl);

    const name = uniqueName('quota');
    const created = await nginx.create(name, 4);
    cleanups.push(() => nginx.delete(name));

    const failing = await waitFor(
      'a ReplicaFailure condition',
      async () => {
        const current = await nginx.get(name);
        return condition(current, 'ReplicaFailure')?.status === 'True' && current;
      },
      { timeoutMs: 30_000 },
    );
    const failure = condition(failing, 'ReplicaFailure')!;
    expect(failure).toMatchObject({ status: 'True', reason: 'FailedCreate' });
    expect(failure.message).toContain('exceeded quota');
    expect(failure.message).toMatch(/limited: pods=2/);
    expect(failing.status?.message).toMatch(/Creating pods failed: .*exceeded quota/);
    expect(condition(failing, 'Available')?.status).toBe('False');
    expect(condition(failing, 'Progressing')).toMatchObject({ status: 'True', reason: 'ScalingUp' });

    await waitFor('the 2 admitted pods Running', async () => running(await nginx.pods(name)).length === 2);
    // The retries with backoff create nothing more: once another retry has been refused (the counter rose), still
    // exactly 2 pods.
    const refusedSoFar = await metric(ctl, 'nginx_pod_create_failures_total');
    await waitFor(
      'another refused retry',
      async () => (await metric(ctl, 'nginx_pod_create_failures_total')) > refusedSoFar,
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    expect(await nginx.pods(name)).toHaveLength(2);
    expect(running(await nginx.pods(name))).toHaveLength(2);
    const warning = await waitFor('a Warning FailedCreate Event on the Nginx', async () =>
      (await nginx.events(created.metadata.uid!)).find(
        (e) => e.type === 'Warning' && e.reason === 'FailedCreate',
      ),
    );
    expect(warning.message).toContain('exceeded quota');
    expect(warning.involvedObject).toMatchObject({ kind: 'Nginx', name, namespace: ns });

    const failingFor = Date.now() - Date.parse(failure.lastTransitionTime);
    await client.request({
      method: 'PATCH',
      path: quotaPath,
      contentType: 'application/merge-patch+json',
      body: { spec: { hard: { pods: '10' } } },
    });
    const raisedAt = Date.now();
    await waitFor('the quota raised in its status', async () => {
      const quota = await client.request<V1ResourceQuota>({ path: quotaPath });
      return quota.status?.hard?.pods === '10';
    });
    // The quota's wake (QUOTA_WAKE, on by default) or the next retry creates the pods.
    const recovered = await nginx.converged(name, 4, 90_000);
    const recoverMs = Date.now() - raisedAt;
    expect(condition(recovered, 'ReplicaFailure')?.status ?? 'False').toBe('False');
    expect(condition(recovered, 'Available')?.status).toBe('True');
    expect(recovered.status?.message).toBe('4 of 4 pods ready.');
    await nginx.staysPastMarker(name, 4);
    console.log(
      `quota: failing for ${failingFor} ms before the quota was raised; 4 Running and ReplicaFailure cleared ` +
        `${recoverMs} ms after`,
    );
  }, 180_000);

  it('deletes unscheduled, then not-ready, then restarted pods first when scaling down', async () => {
    const ns = await createNamespace(client, 'ops-victims', cleanups);
    const nginx = nginxesIn(client, ns);
    const ctl = await controller(ns);
    await leading(ctl);

    const name = uniqueName('victims');
    const created = await nginx.create(name, 3);
    cleanups.push(() => nginx.delete(name));
    await nginx.converged(name, 3);
    const original = names(await nginx.pods(name));

    // Pods created from now on request 1000 CPUs (the kwok nodes have 32), so the scheduler cannot place them.
    // A LimitRange keeps this to the test's namespace; cordoning the nodes would stall every other test's pods.
    await client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/limitranges`,
      body: {
        apiVersion: 'v1',
        kind: 'LimitRange',
        metadata: { name: 'unschedulable' },
        spec: { limits: [{ type: 'Container', default: { cpu: '1000' }, defaultRequest: { cpu: '1000' } }] },
      },
    });
    // The API server's LimitRange cache has it once a dry-run pod gets its default request.
    await waitFor('the LimitRange applied by admission', async () => {
      const probe = await client.request<V1Pod>({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/pods`,
        query: { dryRun: 'All' },
        body: {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: 'limitrange-probe' },
          spec: { containers: [{ name: 'probe', image: 'nginx' }] },
        },
      });
      return probe.spec?.containers[0]?.resources?.requests?.cpu === '1k';
    });
    await nginx.scale(name, 5);
    const unscheduled = await waitFor(
      '2 new pods that the scheduler found no node for',
      async () => {
        const pods = active(await nginx.pods(name));
        const added = pods.filter((p) => !original.includes(p.metadata!.name!));
        const stuck = added.filter(
          (p) =>
            !p.spec?.nodeName &&
            p.status?.conditions?.some((c) => c.type === 'PodScheduled' && c.reason === 'Unschedulable'),
        );
        const status = (await nginx.get(name)).status;
        return pods.length === 5 && stuck.length === 2 && status?.replicas === 5 && names(stuck);
      },
      { timeoutMs: 30_000 },
    );
    expect(running(await nginx.pods(name)).map((p) => p.metadata!.name)).toEqual(
      expect.arrayContaining(original),
    );

    await nginx.scale(name, 3);
    await waitFor('back to 3 pods', async () => active(await nginx.pods(name)).length === 3);
    expect(names(active(await nginx.pods(name)))).toEqual(original);
    await nginx.converged(name, 3);
    await nginx.staysPastMarker(name, 3);
    expect(names(active(await nginx.pods(name)))).toEqual(original); // the Running pods all survived
    const deleteEvents = await waitFor('2 SuccessfulDelete Events', async () => {
      const events = (await nginx.events(created.metadata.uid!)).filter(
        (e) => e.reason === 'SuccessfulDelete',
      );
      return events.length === 2 && events;
    });
    expect(deleteEvents.map((e) => e.message).sort()).toEqual(
      unscheduled.map((pod) => `Deleted pod: ${pod} (scale-down)`),
    );

    // Among scheduled, Running pods: not ready goes before ready even when it is the pod that would otherwise
    // go last (oldest, then last by name). kwok readies only Pending pods, so it leaves the patched one alone.
    const byFallbackOrder = (pods: V1Pod[]) =>
      [...pods].sort(
        (a, b) =>
          Date.parse(String(b.metadata!.creationTimestamp)) -
            Date.parse(String(a.metadata!.creationTimestamp)) ||
          a.metadata!.name!.localeCompare(b.metadata!.name!),
      );
    const notReady = byFallbackOrder(active(await nginx.pods(name))).at(-1)!.metadata!.name!;
    await client.request({
      method: 'PATCH',
      path: `/api/v1/namespaces/${ns}/pods/${notReady}/status`,
      contentType: 'application/strategic-merge-patch+json',
      body: { status: { conditions: [{ type: 'Ready', status: 'False', reason: 'TestNotReady' }] } },
    });
    await waitFor(
      'the controller to count 2 ready',
      async () => (await nginx.get(name)).status?.readyReplicas === 2,
    );
    await nginx.scale(name, 2);
    await waitFor('down to 2 pods', async () => active(await nginx.pods(name)).length === 2);
    expect(names(active(await nginx.pods(name)))).toEqual(original.filter((p) => p !== notReady));

    // Among ready pods: more restarts goes first. No status field shows the restart count, so the pod is made not
    // ready and ready again after the restart is written: seeing readyReplicas go 1 then 2 proves the controller's
    // pod cache holds the restart (one pod's watch events arrive in order) before it chooses whom to delete.
    const restarted = byFallbackOrder(active(await nginx.pods(name))).at(-1)!.metadata!.name!;
    const setRestartedStatus = async (ready: 'True' | 'False') =>
      client.request({
        method: 'PATCH',
        path: `/api/v1/namespaces/${ns}/pods/${restarted}/status`,
        contentType: 'application/strategic-merge-patch+json',
        body: {
          status: {
            containerStatuses: [{ name: 'nginx', restartCount: 3 }],
            conditions: [{ type: 'Ready', status: ready, reason: 'TestRestarted' }],
          },
        },
      });
    for (const [ready, count] of [
      ['False', 1],
      ['True', 2],
    ] as const) {
      await setRestartedStatus(ready);
      await waitFor(
        `the controller to count ${count} ready`,
        async () => (await nginx.get(name)).status?.readyReplicas === count,
      );
    }
    await nginx.scale(name, 1);
    await waitFor('down to 1 pod', async () => active(await nginx.pods(name)).length === 1);
    expect(names(active(await nginx.pods(name)))).toEqual(
      original.filter((p) => p !== notReady && p !== restarted),
    );
    await nginx.converged(name, 1);
    await nginx.staysPastMarker(name, 1);
  }, 180_000);

  it('on SIGTERM the leader exits at once, releases its Lease, and the standby takes over without duplicate pods', async () => {
    const ns = await createNamespace(client, 'ops-lease', cleanups);
    const nginx = nginxesIn(client, ns);
    const leases = await leaseRecorder(ns);
    // Each with a real audit database, so a clean shutdown includes flushing the audit: nothing logged as an error.
    const a = await auditedController(ns);
    const b = await auditedController(ns);
    const [leader, standby] = await leaderAndStandby(a, b);
    const leaseUrl = `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/nginx-controller`;
    const before = await client.request<V1Lease>({ path: leaseUrl });
    expect(before.spec?.holderIdentity).toBe(leader.identity);
    expect(before.spec?.leaseDurationSeconds).toBe(15);

    const replicas = 30;
    const name = uniqueName('handover');
    const pods = await podRecorder(client, ns, `mycompany.com/nginx=${name}`);
    cleanups.push(pods.stop);
    const created = await nginx.create(name, replicas);
    cleanups.push(() => nginx.delete(name));
    // SIGTERM while the leader is creating the pods (slow-start batches 1, 2, 4, 8, 15).
    await waitFor('the leader to start creating pods', () => pods.seen.size > 0, { intervalMs: 5 });
    const podsAtSigterm = pods.seen.size;
    const sigtermAt = Date.now();
    const exit = await leader.terminate();
    const podsAtExit = pods.seen.size;

    expect(exit.killed).toBe(false);
    // NestJS's shutdown hooks re-raise the signal after closing the app, so a graceful stop ends by SIGTERM.
    expect(exit.code === 0 || exit.signal === 'SIGTERM').toBe(true);
    expect(leader.output()).toContain('released the lease');
    expect(errorLines(leader.output())).toEqual([]);

    const takenOver = await waitFor(
      'the standby to hold the Lease',
      () => leases.find((l) => l.at >= sigtermAt && l.holder === standby.identity),
      { timeoutMs: 20_000, intervalMs: 20 },
    );
    const takeoverMs = takenOver.at - sigtermAt;
    const released = leases.find((l) => l.at >= sigtermAt && l.holder === '');
    expect(released, `lease history: ${JSON.stringify(leases)}`).toBeDefined();
    expect(released!.durationSeconds).toBe(1);
    expect(released!.at).toBeLessThanOrEqual(takenOver.at);
    // Released, not waited out, by the Lease's own times: the release and the standby's acquisition both came
    // before the old leader's last renewal would have run out (15 s after it).
    const lastRenewal = leases.filter((l) => l.holder === leader.identity).at(-1)!;
    const expiry = lastRenewal.renewTime! + lastRenewal.durationSeconds! * 1000;
    expect(released!.renewTime).toBeLessThan(expiry);
    expect(takenOver.acquireTime).toBeLessThan(expiry);
    const after = await client.request<V1Lease>({ path: leaseUrl });
    expect(after.spec?.holderIdentity).toBe(standby.identity);
    expect(after.spec?.leaseTransitions).toBe((before.spec?.leaseTransitions ?? 0) + 1);
    await leading(standby);

    await nginx.converged(name, replicas, 60_000);
    await nginx.staysPastMarker(name, replicas);
    // No duplicates: every pod ever created for it is still there, none was created and deleted again.
    expect(pods.seen.size).toBe(replicas);
    expect(names(active(await nginx.pods(name)))).toEqual(names([...pods.seen.values()]));
    const events = await nginx.events(created.metadata.uid!);
    expect(events.filter((e) => e.reason === 'SuccessfulDelete')).toEqual([]);
    const createdBy = (identity: string) =>
      events.filter((e) => e.reason === 'SuccessfulCreate' && e.reportingInstance === identity).length;
    console.log(
      `SIGTERM with ${podsAtSigterm}/${replicas} pods, exit (${exit.code ?? exit.signal}) after ${exit.ms} ms ` +
        `with ${podsAtExit} pods, lease released after ${released!.at - sigtermAt} ms, standby leading after ` +
        `${takeoverMs} ms; pods created by the old leader ${createdBy(leader.identity)}, by the new ${createdBy(standby.identity)}`,
    );
  }, 180_000);
});
