// The controller's lifecycle as users and operators meet it: a graceful SIGTERM of the leader (a rolling update of
// our own Deployment) at several moments of a scale-up, a Lease whose renewals stall, a ResourceQuota that refuses
// pods for minutes and is then raised, and an orphaning delete racing adoption. Every test has a namespace of its
// own and controllers that watch only it (WATCH_NAMESPACE; their Lease lives there too).
// The quota scenario runs in the background for the whole file (it must outlast client-go's old retry budget,
// about 164 s); its assertions are the last test.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod, V1ResourceQuota } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { Nginx } from '../libs/nginx-api/src/index.js';
import { FaultProxy } from './chaos/support/fault-proxy.js';
import { HEADLESS, leaderAndStandby, metric, startApp, type AppProcess } from './support/app-process.js';
import { migrate } from './support/database.js';
import { applyNginxCrd } from './support/kubectl.js';
import { active, createNamespace, createPodQuota, nginxesIn, podRecorder } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { sleep, uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const controllers: AppProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(applyNginxCrd);
afterEach(async () => {
  for (const controller of controllers.splice(0)) await controller.kill();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(() => client.close());

/** A controller watching only `ns`, with its Lease there, its own SQLite audit trail, leader election on. */
async function controller(
  ns: string,
  env: Record<string, string> = {},
  keep = controllers,
): Promise<AppProcess> {
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), 'ngx-lifecycle-')), 'audit.db')}`;
  await migrate(databaseUrl);
  const started = await startApp({
    ...HEADLESS,
    WATCH_NAMESPACE: ns,
    INSTALL_CRD: 'false',
    DATABASE_URL: databaseUrl,
    ...env,
  });
  keep.push(started);
  onTestFailed(() =>
    console.log(`--- controller ${started.identity}:\n${started.output().split('\n').slice(-60).join('\n')}`),
  );
  return started;
}

const isWrite = (method: string) => method !== 'GET';
const isLease = (path: string) => path.includes('/leases/') || path.endsWith('/leases');

// ─── The quota scenario, in the background ────────────────────────────────────────────────────────────────────
const QUOTA_REFUSAL_MS = 170_000;
const quotaCleanups: (() => Promise<unknown>)[] = [];
const quotaControllers: AppProcess[] = [];
let quotaScenario: Promise<QuotaFigures> | undefined;

interface QuotaFigures {
  refusedFirstMinute: number;
  refusedTotal: number;
  refusingMs: number;
  convergedAfterRaiseMs: number;
  /** From the raise to kube-controller-manager's copy of the new limit in the quota's status. */
  raisedInStatusMs: number | undefined;
  output: string;
}

async function quotaRefusingForMinutes(): Promise<QuotaFigures> {
  const ns = await createNamespace(client, 'life-quota', quotaCleanups);
  const quotaPath = await createPodQuota(client, ns, 1);
  const ctl = await controller(ns, {}, quotaControllers);
  await waitFor('the controller to lead', async () => (await ctl.readiness()).checks.controller.leader, {
    timeoutMs: 30_000,
  });
  const nginx = nginxesIn(client, ns);
  const name = uniqueName('quota');
  await nginx.create(name, 3);
  const started = Date.now();
  await waitFor('the first refusal', async () => (await metric(ctl, 'nginx_pod_create_failures_total')) > 0, {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  const firstRefusal = Date.now();
  await sleep(60_000 - (Date.now() - firstRefusal));
  const refusedFirstMinute = await metric(ctl, 'nginx_pod_create_failures_total');
  await sleep(Math.max(0, QUOTA_REFUSAL_MS - (Date.now() - started)));
  const refusedTotal = await metric(ctl, 'nginx_pod_create_failures_total');
  const refusingMs = Date.now() - firstRefusal;
  expect(active(await nginx.pods(name))).toHaveLength(1);

  await client.request({
    method: 'PATCH',
    path: quotaPath,
    contentType: 'application/merge-patch+json',
    body: { spec: { hard: { pods: '10' } } },
  });
  const raisedAt = Date.now();
  // The backoff would now wait minutes: the raised quota must wake the Nginx at once. Admission counts against the
  // quota's status, so nothing can be created before kube-controller-manager has copied the raised limit there;
  // a CI run once took over 20 s for all of it, so the bound leaves room for a loaded cluster, not for the backoff.
  let raisedInStatusMs: number | undefined;
  void waitFor(
    'the raised limit in the quota’s status',
    async () => {
      const quota = await client.request<V1ResourceQuota>({ path: quotaPath });
      if (quota.status?.hard?.pods !== '10') return false;
      raisedInStatusMs = Date.now() - raisedAt;
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 100 },
  ).catch(() => {});
  await nginx.converged(name, 3, 60_000).catch(async (error: unknown) => {
    const [quota, stuck, pods] = await Promise.all([
      client.request<V1ResourceQuota>({ path: quotaPath }),
      nginx.get(name),
      nginx.pods(name),
    ]);
    const since = (time: Date | string | undefined) =>
      time ? `${Date.parse(String(time)) - raisedAt} ms` : '-';
    throw new Error(
      [
        String(error),
        `the raised limit reached the quota's status after ${raisedInStatusMs ?? 'more than the wait'} ms`,
        `quota: status.hard ${JSON.stringify(quota.status?.hard)}, used ${JSON.stringify(quota.status?.used)}; ` +
          `written (from the raise) ${(quota.metadata?.managedFields ?? []).map((m) => `${m.manager} ${m.subresource ?? ''} ${since(m.time)}`).join(', ')}`,
        `pods: ${pods.map((p) => `${p.metadata?.name} created ${since(p.metadata?.creationTimestamp)} ${p.status?.phase}`).join('; ')}`,
        `nginx status: ${JSON.stringify(stuck.status)}`,
        `--- controller ${ctl.identity}:`,
        ...ctl.output().split('\n').slice(-80),
      ].join('\n'),
    );
  });
  return {
    refusedFirstMinute,
    refusedTotal,
    refusingMs,
    convergedAfterRaiseMs: Date.now() - raisedAt,
    raisedInStatusMs,
    output: ctl.output(),
  };
}

describe('the controller’s lifecycle', () => {
  beforeAll(() => {
    quotaScenario = quotaRefusingForMinutes();
    quotaScenario.catch(() => {}); // asserted in the last test
  });
  afterAll(async () => {
    for (const ctl of quotaControllers.splice(0)) await ctl.kill();
    for (const cleanup of quotaCleanups.splice(0).reverse()) await cleanup().catch(() => {});
  });

  it.each([
    ['early', 1],
    ['in the middle', 150],
    ['late', 270],
  ])(
    'hands over on SIGTERM %s in a 0 → 300 scale-up without creating a pod twice or deleting one as surplus',
    async (moment, podsBeforeSigterm) => {
      const replicas = 300;
      const ns = await createNamespace(client, 'life-handover', cleanups);
      const recorder = await podRecorder(client, ns);
      cleanups.push(recorder.stop);
      const [leader, standby] = await leaderAndStandby(await controller(ns), await controller(ns));
      const nginx = nginxesIn(client, ns);
      const name = uniqueName('handover');
      const created = await nginx.create(name, replicas);

      await waitFor(`${podsBeforeSigterm} pods created`, () => recorder.seen.size >= podsBeforeSigterm, {
        timeoutMs: 60_000,
        intervalMs: 5,
      });
      const atSigterm = recorder.seen.size;
      const exit = await leader.terminate(20_000);
      const atExit = recorder.seen.size;
      expect(exit.killed).toBe(false);
      expect(leader.output()).toContain('released the lease');

      await nginx.converged(name, replicas, 120_000);
      await nginx.stays(name, replicas, 2000);
      expect((await standby.readiness()).checks.controller.leader).toBe(true);
      // Every pod ever created for it is one of the final ones; none was created twice and deleted again.
      expect(recorder.seen.size).toBe(replicas);
      expect(recorder.deleted.size).toBe(0);
      const caughtUp = /caches caught up with a consistent read[^\n]*/.exec(standby.output())?.[0];
      console.log(
        `SIGTERM ${moment}: ${atSigterm}/${replicas} pods at SIGTERM, ${atExit} when the old leader had exited ` +
          `(${exit.ms} ms); ${recorder.seen.size} distinct pods created for ${replicas} replicas, ` +
          `${recorder.deleted.size} deleted; ${caughtUp ?? 'no catch-up logged'} (uid ${created.metadata.uid})`,
      );
    },
    180_000,
  );

  it('stops acting when its Lease renewals stall, before the Lease expires, and the standby takes over with no overlap', async () => {
    const ns = await createNamespace(client, 'life-stall', cleanups);
    const lease = {
      LEASE_DURATION_SECONDS: '6',
      LEASE_RENEW_DEADLINE_SECONDS: '4',
      LEASE_RETRY_PERIOD_SECONDS: '1',
    };
    // Slow pod writes, so the leader is still creating when its renewals stall.
    const limits = { KUBE_API_QPS: '20', KUBE_API_BURST: '20' };
    const proxies = [await new FaultProxy().start(), await new FaultProxy().start()];
    for (const proxy of proxies) cleanups.push(() => proxy.close());
    const [viaA, viaB] = proxies as [FaultProxy, FaultProxy];
    const a = await controller(ns, { ...lease, ...limits, KUBECONFIG: viaA.kubeconfig() });
    await waitFor('A to lead', async () => (await a.readiness()).checks.controller.leader, {
      timeoutMs: 30_000,
    });
    const b = await controller(ns, { ...lease, ...limits, KUBECONFIG: viaB.kubeconfig() });
    await waitFor(
      'B to stand by with synced caches',
      async () => (await b.readiness()).checks.controller.ok,
      {
        timeoutMs: 30_000,
      },
    );

    const recorder = await podRecorder(client, ns);
    cleanups.push(recorder.stop);
    const replicas = 200;
    const nginx = nginxesIn(client, ns);
    const name = uniqueName('stall');
    await nginx.create(name, replicas);
    await waitFor('A creating pods', () => recorder.seen.size >= 20, { timeoutMs: 30_000, intervalMs: 10 });
    viaA.stalledPaths.add('/leases/');
    const stalledAt = Date.now();

    await nginx.converged(name, replicas, 120_000);
    viaA.stalledPaths.clear();
    expect(recorder.seen.size).toBe(replicas);
    expect(recorder.deleted.size).toBe(0);

    // A SelfSubjectReview (the app asking kube-apiserver who it is, for the audit) is a POST that stores nothing.
    const writes = (proxy: FaultProxy) =>
      proxy.log.filter(
        (r) => isWrite(r.method) && !isLease(r.path) && !r.path.includes('/selfsubjectreviews'),
      );
    const lastRenewA = viaA.log
      .filter((r) => r.method === 'PUT' && isLease(r.path) && r.status === 200)
      .at(-1)!;
    const lastWriteA = writes(viaA).at(-1)!;
    const firstWriteB = writes(viaB)[0]!;
    const firstLeaseB = viaB.log.find((r) => r.method === 'PUT' && isLease(r.path) && r.status === 200)!;
    expect(lastRenewA.at).toBeLessThan(stalledAt + 1000);
    // A wrote nothing once B could hold the Lease (6 s after A's last renewal), and nothing after B began.
    expect(lastWriteA.at).toBeLessThan(lastRenewA.at + 6000);
    expect(lastWriteA.answeredAt ?? lastWriteA.at).toBeLessThan(firstWriteB.at);
    expect(firstLeaseB.at).toBeGreaterThanOrEqual(lastRenewA.at + 6000);
    expect(a.output()).toContain('lost leadership');
    console.log(
      `stalled renewals: A renewed last ${lastRenewA.at - stalledAt} ms after the stall began, wrote last ` +
        `${lastWriteA.at - lastRenewA.at} ms after that renewal; B took the Lease ${firstLeaseB.at - lastRenewA.at} ms ` +
        `after it and wrote first ${firstWriteB.at - lastWriteA.at} ms after A's last write; ` +
        `${recorder.seen.size} distinct pods for ${replicas} replicas`,
    );
  }, 240_000);

  it('keeps the user’s pods when an orphaning delete races adoption, and adopts them again on re-create', async () => {
    const ns = await createNamespace(client, 'life-orphan', cleanups);
    const recorder = await podRecorder(client, ns);
    cleanups.push(recorder.stop);
    const ctl = await controller(ns, { LEADER_ELECTION: 'false' });
    await waitFor('caches synced', async () => (await ctl.readiness()).checks.controller.ok, {
      timeoutMs: 30_000,
    });
    const nginx = nginxesIn(client, ns);
    const names = Array.from({ length: 5 }, (_, i) => `web-${i}`);
    const replicas = 6;
    for (const name of names) await nginx.create(name, replicas);
    for (const name of names) await nginx.converged(name, replicas, 60_000);
    const before = new Set(recorder.seen.keys());
    expect(before.size).toBe(names.length * replicas);

    for (const name of names)
      await client.request({
        method: 'DELETE',
        path: `/apis/mycompany.com/v1/namespaces/${ns}/nginxes/${name}`,
        body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Orphan' },
      });
    await waitFor(
      'the Nginxes gone',
      async () => {
        const left = await client.request<{ items: Nginx[] }>({
          path: `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`,
        });
        return left.items.length === 0;
      },
      { timeoutMs: 60_000 },
    );
    await sleep(3000); // time for a wrong adoption to be undone by the garbage collector
    const pods = await client.request<{ items: V1Pod[] }>({ path: `/api/v1/namespaces/${ns}/pods` });
    expect(active(pods.items)).toHaveLength(names.length * replicas);
    expect(pods.items.every((p) => (p.metadata?.ownerReferences ?? []).length === 0)).toBe(true);
    expect(recorder.deleted.size).toBe(0);

    for (const name of names) await nginx.create(name, replicas);
    for (const name of names) await nginx.converged(name, replicas, 60_000);
    expect(new Set(recorder.seen.keys())).toEqual(before); // adopted, none created
    expect(recorder.deleted.size).toBe(0);
    console.log(
      `orphaning delete: ${before.size} pods kept unowned, then adopted by the re-created Nginxes with none created`,
    );
  }, 180_000);

  it('under a quota refusing pods for minutes, retries at the backoff’s pace, never gives up, and converges at once when it is raised', async () => {
    const figures = await quotaScenario!;
    expect(figures.refusingMs).toBeGreaterThan(164_000); // longer than client-go's old 15-retry budget
    // The ReplicaSet controller made 15 refused creates in its first minute on the same cluster.
    expect(figures.refusedFirstMinute).toBeLessThanOrEqual(30);
    expect(figures.refusedTotal).toBeLessThanOrEqual(40);
    expect(figures.output).not.toContain('dropping key');
    console.log(
      `quota: ${figures.refusedFirstMinute} refused creates in the first minute, ${figures.refusedTotal} in ` +
        `${Math.round(figures.refusingMs / 1000)} s; converged ${figures.convergedAfterRaiseMs} ms after the raise ` +
        `(the quota's status had it after ${figures.raisedInStatusMs} ms)`,
    );
  }, 300_000);
});
