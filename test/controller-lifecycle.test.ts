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
import { refusedCreation } from '../apps/api/src/controller/event-handlers.js';
import { FaultProxy } from './chaos/support/fault-proxy.js';
import { HEADLESS, leaderAndStandby, metric, startApp, type AppProcess } from './support/app-process.js';
import { migrate } from './support/database.js';
import { applyNginxCrd } from './support/kubectl.js';
import { active, createNamespace, createPodQuota, nginxesIn, podRecorder } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { sleep, staysTrue, uniqueName, waitFor } from './support/wait.js';

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

// ─── The quota scenarios, in the background ───────────────────────────────────────────────────────────────────
// Two controllers, each in a namespace of its own with a quota of 1 pod and an Nginx of 3: one with the quota wake
// (the default), refused for minutes; one with QUOTA_WAKE=false, refused for a dozen tries, so that its
// convergence after the raise can only come from its retries.
const QUOTA_REFUSAL_MS = 170_000;
const quotaCleanups: (() => Promise<unknown>)[] = [];
const quotaControllers: AppProcess[] = [];
let quotaScenario: Promise<QuotaFigures> | undefined;
let retryScenario: Promise<QuotaFigures> | undefined;

/** One `reconciled` line of a controller's JSON log. */
interface Reconciled {
  key: string;
  trigger: string;
  result: string;
  actions: string;
}

interface QuotaFigures {
  /** When the refused-creates counter rose, in ms since the first refusal (sampled every 100 ms). */
  refusalsAtMs: number[];
  /** How many of those came before the raise. */
  refusalsBeforeRaise: number;
  refusedFirstMinute: number;
  refusedTotal: number;
  refusingMs: number;
  /** The Nginx's status when the quota was raised: whether it still reported the refused creation. */
  refusedAtRaise: boolean;
  /** From the raise to kube-controller-manager's copy of the new limit in the quota's status. */
  raisedInStatusMs: number | undefined;
  /** From the first refusal to the raise, and to the moment all 3 pods existed. */
  raisedAtMs: number;
  allCreatedAtMs: number;
  convergedAfterRaiseMs: number;
  /** The Nginx's reconciles logged after the raise, in order; the first of them that created pods. */
  afterRaise: Reconciled[];
  creator: Reconciled | undefined;
  output: string;
}

const reconciledLines = (output: string, key: string): Reconciled[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => {
      try {
        return JSON.parse(line) as Reconciled & { message?: string };
      } catch {
        return undefined;
      }
    })
    .filter((entry): entry is Reconciled & { message?: string } => entry?.message === 'reconciled')
    .filter((entry) => entry.key === key);

async function quotaRefusing(
  wake: boolean,
  raiseWhen: { refusals?: number; ms?: number },
): Promise<QuotaFigures> {
  const ns = await createNamespace(client, wake ? 'life-quota' : 'life-quota-retry', quotaCleanups);
  const quotaPath = await createPodQuota(client, ns, 1);
  const ctl = await controller(ns, wake ? {} : { QUOTA_WAKE: 'false' }, quotaControllers);
  await waitFor('the controller to lead', async () => (await ctl.readiness()).checks.controller.leader, {
    timeoutMs: 30_000,
  });
  const nginx = nginxesIn(client, ns);
  const name = uniqueName('quota');
  const key = `${ns}/${name}`;
  await nginx.create(name, 3);
  await waitFor('the first refusal', async () => (await metric(ctl, 'nginx_pod_create_failures_total')) > 0, {
    timeoutMs: 30_000,
    intervalMs: 50,
  });
  const firstRefusal = Date.now();
  // Every rise of the refused-creates counter, when it was seen: the pace of the retries.
  const refusalsAtMs: number[] = [];
  let refused = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const now = await metric(ctl, 'nginx_pod_create_failures_total').catch(() => refused);
      for (; refused < now; refused++) refusalsAtMs.push(Date.now() - firstRefusal);
      await sleep(100);
    }
  })();
  let refusedFirstMinute = 0;
  if (raiseWhen.ms !== undefined) {
    // The quota holds it at one pod all along, until `ms` after the first refusal.
    const onePodUntil = (ms: number) =>
      staysTrue(
        'one pod under the quota',
        async () => active(await nginx.pods(name)).length === 1,
        Math.max(0, ms - (Date.now() - firstRefusal)),
        { intervalMs: 1_000 },
      );
    await onePodUntil(60_000);
    refusedFirstMinute = await metric(ctl, 'nginx_pod_create_failures_total');
    await onePodUntil(raiseWhen.ms);
  } else {
    await waitFor(`${raiseWhen.refusals} refusals`, () => refusalsAtMs.length >= raiseWhen.refusals!, {
      timeoutMs: 120_000,
    });
  }
  const refusedTotal = await metric(ctl, 'nginx_pod_create_failures_total');
  const refusingMs = Date.now() - firstRefusal;
  expect(active(await nginx.pods(name))).toHaveLength(1);
  const refusedAtRaise = refusedCreation(await nginx.get(name));

  const outputAtRaise = ctl.output().length;
  const refusalsBeforeRaise = refusalsAtMs.length;
  await client.request({
    method: 'PATCH',
    path: quotaPath,
    contentType: 'application/merge-patch+json',
    body: { spec: { hard: { pods: '10' } } },
  });
  const raisedAt = Date.now();
  // Admission counts against the quota's status, so nothing can be created before kube-controller-manager has
  // copied the raised limit there.
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
  let allCreatedAtMs = 0;
  void waitFor(
    'all 3 pods created',
    async () => active(await nginx.pods(name)).length === 3 && (allCreatedAtMs = Date.now() - firstRefusal),
    { timeoutMs: 600_000, intervalMs: 100 },
  ).catch(() => {});
  // Retries alone wait out their backoff (5 ms doubling per refusal): room for two more of its steps.
  const lastGap = (refusalsAtMs.at(-1) ?? 0) - (refusalsAtMs.at(-2) ?? 0);
  const convergeWithinMs = wake ? 60_000 : Math.max(60_000, 4 * lastGap + 30_000);
  await nginx.converged(name, 3, convergeWithinMs).catch(async (error: unknown) => {
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
  const convergedAfterRaiseMs = Date.now() - raisedAt;
  await waitFor('the creation of all 3 pods timed', () => allCreatedAtMs > 0);
  sampling = false;
  await sampler;
  const afterRaise = reconciledLines(ctl.output().slice(outputAtRaise), key);
  return {
    refusalsAtMs,
    refusalsBeforeRaise,
    refusedFirstMinute,
    refusedTotal,
    refusingMs,
    refusedAtRaise,
    raisedInStatusMs,
    raisedAtMs: raisedAt - firstRefusal,
    allCreatedAtMs,
    convergedAfterRaiseMs,
    afterRaise,
    creator: afterRaise.find((line) => /\bcreate [1-9]/.test(line.actions ?? '')),
    output: ctl.output(),
  };
}

describe('the controller’s lifecycle', () => {
  beforeAll(() => {
    quotaScenario = quotaRefusing(true, { ms: QUOTA_REFUSAL_MS });
    quotaScenario.catch(() => {}); // asserted in the last tests
    retryScenario = quotaRefusing(false, { refusals: 12 });
    retryScenario.catch(() => {});
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
      await nginx.staysPastMarker(name, replicas);
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
    const firstUids = new Map<string, string>();
    for (const name of names) firstUids.set(name, (await nginx.create(name, replicas)).metadata.uid!);
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
    // A wrong adoption (an owner reference to a deleted Nginx) would be undone by the garbage collector deleting
    // the pod. Its marker, not a sleep: a pod created now with such a reference (and no label of ours), which the
    // garbage collector deletes; once it has, it has dealt with any wrong adoption before it too.
    const marker = await client.request<V1Pod>({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/pods`,
      body: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'gc-marker',
          ownerReferences: [
            { apiVersion: 'mycompany.com/v1', kind: 'Nginx', name: names[0], uid: firstUids.get(names[0]!) },
          ],
        },
        spec: { containers: [{ name: 'nginx', image: 'nginx' }] },
      },
    });
    const markerUid = marker.metadata!.uid!;
    await waitFor('the garbage collector to delete the marker pod', () => recorder.deleted.has(markerUid), {
      timeoutMs: 60_000,
    });
    const pods = (
      await client.request<{ items: V1Pod[] }>({ path: `/api/v1/namespaces/${ns}/pods` })
    ).items.filter((p) => p.metadata?.uid !== markerUid);
    expect(active(pods)).toHaveLength(names.length * replicas);
    expect(pods.every((p) => (p.metadata?.ownerReferences ?? []).length === 0)).toBe(true);
    expect([...recorder.deleted]).toEqual([markerUid]);
    recorder.seen.delete(markerUid);
    recorder.deleted.delete(markerUid);

    for (const name of names) await nginx.create(name, replicas);
    for (const name of names) await nginx.converged(name, replicas, 60_000);
    expect(new Set(recorder.seen.keys())).toEqual(before); // adopted, none created
    // The marker's own removal may still be arriving (its deletion timestamp came first, the delete event now).
    expect([...recorder.deleted].filter((uid) => uid !== markerUid)).toEqual([]);
    console.log(
      `orphaning delete: ${before.size} pods kept unowned, then adopted by the re-created Nginxes with none created`,
    );
  }, 180_000);

  it('under a quota refusing pods for minutes, retries at the backoff’s pace, never gives up, and converges at once when it is raised', async () => {
    const figures = await quotaScenario!;
    const refusalsAtMs = figures.refusalsAtMs.slice(0, figures.refusalsBeforeRaise);
    expect(figures.refusingMs).toBeGreaterThan(164_000); // longer than client-go's old 15-retry budget
    // The ReplicaSet controller made 15 refused creates in its first minute on the same cluster.
    expect(figures.refusedFirstMinute).toBeLessThanOrEqual(30);
    expect(figures.refusedTotal).toBeLessThanOrEqual(40);
    // At the backoff's pace: the last gap between refusals before the raise is over 10 s, and many times the
    // early ones.
    const gaps = refusalsAtMs.slice(1).map((at, i) => at - refusalsAtMs[i]!);
    expect(gaps.at(-1)!).toBeGreaterThan(10_000);
    expect(gaps.at(-1)!).toBeGreaterThan(4 * Math.max(...gaps.slice(0, 5)));
    // Never gives up: it still retried after the first minute, the key was never dropped, and its status still
    // reported the refused creation when the quota was raised, minutes in.
    expect(refusalsAtMs.at(-1)!).toBeGreaterThan(60_000);
    expect(figures.refusedTotal).toBeGreaterThan(figures.refusedFirstMinute);
    expect(figures.output).not.toContain('dropping key');
    expect(figures.refusedAtRaise).toBe(true);
    // At once, by the quota's wake: reconciles woken by the quota change ran after the raise, and the pods were all
    // there well before the next retry was due.
    expect(figures.afterRaise.some((line) => line.trigger === 'quota-changed')).toBe(true);
    expect(figures.creator).toBeDefined();
    // The next retry was due about two last gaps after the last refusal (the delay doubles); 1.5 leaves room.
    expect(figures.allCreatedAtMs).toBeLessThan(refusalsAtMs.at(-1)! + 1.5 * gaps.at(-1)!);
    console.log(
      `quota: ${figures.refusedFirstMinute} refused creates in the first minute, ${figures.refusedTotal} in ` +
        `${Math.round(figures.refusingMs / 1000)} s (at ${refusalsAtMs.map((ms) => Math.round(ms / 1000)).join(', ')} s); ` +
        `converged ${figures.convergedAfterRaiseMs} ms after the raise (the quota's status had it after ` +
        `${figures.raisedInStatusMs} ms; the pods were created by a ${figures.creator?.trigger} reconcile)`,
    );
  }, 300_000);

  it('with QUOTA_WAKE=false, converges after the raise by its retries alone', async () => {
    const figures = await retryScenario!;
    const { refusalsAtMs } = figures;
    expect(figures.refusedAtRaise).toBe(true);
    // No wake: nothing woke the Nginx for the quota, and the pods were created by a retry of the refused sync.
    expect(figures.output).not.toContain('quota-changed');
    expect(figures.creator?.trigger).toBe('retry');
    expect(figures.creator?.result).not.toBe('error');
    // And it waited for its backoff: the creating retry came no sooner than the last gap after the last refusal
    // (the backoff doubles), whereas the wake would have acted on the raise at once.
    const lastGap = refusalsAtMs.at(-1)! - refusalsAtMs.at(-2)!;
    expect(figures.allCreatedAtMs).toBeGreaterThanOrEqual(refusalsAtMs.at(-1)! + lastGap - 250);
    expect(figures.output).not.toContain('dropping key');
    console.log(
      `quota without the wake: ${figures.refusedTotal} refused creates (at ${refusalsAtMs.map((ms) => (ms / 1000).toFixed(1)).join(', ')} s), ` +
        `raised at ${(figures.raisedAtMs / 1000).toFixed(1)} s (in its status ${figures.raisedInStatusMs} ms later); ` +
        `all pods at ${(figures.allCreatedAtMs / 1000).toFixed(1)} s, by a ${figures.creator?.trigger} reconcile`,
    );
  }, 600_000);
});
