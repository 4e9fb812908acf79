// Runs alone: restarts kube-apiserver, which every other file's watches would see.
// Fault tests: the controller must lose nothing and converge exactly through crashes, an API server restart, a
// forced 410 Gone after etcd compaction, an API server answering 20% of requests with errors or not at all, an
// unavailable audit database, and the death of the leader. Each test has its own namespace and a controller that
// watches only it (WATCH_NAMESPACE), so other test files' controllers cannot act on its objects.
// CI runs a short form; CHAOS=long runs the sizes of the issue (50 × 10, five kills, a 30 s database outage).
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { HEADLESS, leaderAndStandby, metric, startApp, type AppProcess } from '../support/app-process.js';
import { migrate } from '../support/database.js';
import { applyNginxCrd, kubectl } from '../support/kubectl.js';
import { createNamespace, podRecorder, restartKubeApiServer } from '../support/operations.js';
import { runtimeClient } from '../support/runtime.js';
import { sleep, waitFor } from '../support/wait.js';
import { FaultProxy } from './support/fault-proxy.js';
import { fleet } from './support/fleet.js';

const LONG = process.env.CHAOS === 'long';
const client = runtimeClient();
const controllers: AppProcess[] = [];
const cleanups: (() => Promise<unknown>)[] = [];
const TOKEN = 'chaos-admin-token-0123456789';

beforeAll(applyNginxCrd);
afterEach(async () => {
  for (const controller of controllers.splice(0)) await controller.kill();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});
afterAll(() => client.close());

/** A migrated SQLite audit database per namespace, shared by the controllers a test starts there. */
const databases = new Map<string, Promise<string>>();
function databaseFor(ns: string): Promise<string> {
  if (!databases.has(ns)) {
    const url = `file:${join(mkdtempSync(join(tmpdir(), 'ngx-chaos-db-')), 'audit.db')}`;
    databases.set(
      ns,
      migrate(url).then(() => url),
    );
  }
  return databases.get(ns)!;
}

/** A controller that watches only `ns`; leader election off unless asked for (its Lease lives in `ns`). */
async function controller(ns: string, env: Record<string, string> = {}): Promise<AppProcess> {
  const started = await startApp({
    ...HEADLESS,
    DATABASE_URL: await databaseFor(ns),
    WATCH_NAMESPACE: ns,
    INSTALL_CRD: 'false',
    LEADER_ELECTION: 'false',
    AUTH_TOKENS: `chaos:admin:${TOKEN}`,
    // The audit's accounting below counts reconcile records: no timeline evidence or informer-observed changes.
    AUDIT_TIMELINE: 'false',
    ...env,
  });
  controllers.push(started);
  onTestFailed(() =>
    console.log(
      `--- controller ${started.identity}:\n${started.output().split('\n').slice(-80).join('\n').slice(-12_000)}`,
    ),
  );
  return started;
}

/** Compacts etcd at its current revision, through its JSON gateway. */
function compactEtcd(): number {
  const port = process.env.CLUSTER_ETCD_PORT ?? '23790';
  const post = (path: string, body: unknown) =>
    JSON.parse(
      execFileSync(
        'curl',
        ['-sf', '-X', 'POST', `http://127.0.0.1:${port}${path}`, '-d', JSON.stringify(body)],
        {
          encoding: 'utf8',
        },
      ),
    ) as { header: { revision: string } };
  const revision = Number(
    post('/v3/kv/range', { key: Buffer.from('/').toString('base64'), limit: 1 }).header.revision,
  );
  post('/v3/kv/compaction', { revision: String(revision), physical: true });
  return revision;
}

describe('the controller under faults', () => {
  it(`ends with exactly the desired pods after ${LONG ? 5 : 3} kill -9s during a scale-up`, async () => {
    const [count, replicas, kills] = LONG ? [50, 10, 5] : [10, 5, 3];
    const total = count * replicas;
    const ns = await createNamespace(client, 'chaos-kill', cleanups);
    const recorder = await podRecorder(client, ns);
    cleanups.push(recorder.stop);
    const nginxes = fleet(client, ns, 'web', count);
    // Pod writes paced at 10 a second, so the scale-up takes seconds and every kill lands inside it.
    const paced = { KUBE_API_QPS: '10', KUBE_API_BURST: '5' };
    let ctl = await controller(ns, paced);
    await nginxes.create(replicas);
    const killedAt: number[] = [];
    for (let i = 0; i < kills; i++) {
      // Each kill when the watch has seen the next share of the pods created: driven by what happened.
      const threshold = Math.ceil(((i + 1) * total) / (kills + 1));
      await waitFor(`${threshold} of ${total} pods created`, () => recorder.seen.size >= threshold, {
        timeoutMs: 60_000,
        intervalMs: 5,
      });
      await ctl.kill();
      // Nothing is sent after the kill: what kube-apiserver holds now is what the kill left.
      killedAt.push((await nginxes.census()).active);
      controllers.splice(controllers.indexOf(ctl), 1);
      ctl = await controller(ns, paced);
    }
    // Every kill landed mid-scale-up: pods were still missing each time.
    for (const active of killedAt) expect(active).toBeLessThan(total);
    const ms = await nginxes.converged(replicas);
    // A marker Nginx, converged after the fleet: by then a late or duplicate create for the fleet would have shown.
    const marker = fleet(client, ns, 'marker', 1);
    await marker.create(1);
    await marker.converged(1);
    const { perNginx, orphans } = await nginxes.census();
    expect(orphans).toEqual([]);
    expect([...perNginx.values()].every((n) => n === replicas)).toBe(true);
    expect(recorder.seen.size).toBe(total + 1); // every pod ever created is one of the final ones
    console.log(
      `kill -9 × ${kills} during ${count} × ${replicas}: killed with ${killedAt.join(', ')} pods up; ` +
        `${total} exact ${ms} ms after the last restart`,
    );
  }, 300_000);

  it('has every pod after a kube-apiserver restart in the middle of a scale-up, then converges with its cache equal to a fresh LIST', async () => {
    const [count, replicas] = LONG ? [20, 10] : [5, 4];
    const ns = await createNamespace(client, 'chaos-apiserver', cleanups);
    const nginxes = fleet(client, ns, 'web', count);
    // Pod writes paced at 5 a second, so the restart lands in the scale-up.
    const ctl = await controller(ns, { KUBE_API_QPS: '5', KUBE_API_BURST: '1' });
    await nginxes.create(replicas);
    await waitFor('the first pods', async () => (await nginxes.census()).active > 0, { intervalMs: 20 });
    const restart = await restartKubeApiServer();
    // Our part — every pod created, none extra, all owned — after its return; Running then depends on the
    // scheduler and kwok catching up with the restarted API server too.
    const back = Date.now();
    await waitFor(
      'every pod created again',
      async () => {
        const { perNginx, orphans } = await nginxes.census();
        return orphans.length === 0 && [...perNginx.values()].every((n) => n === replicas);
      },
      { timeoutMs: 60_000, intervalMs: 100 },
    );
    // When the pods were created, by kube-apiserver's own creation timestamps (whole seconds), not by when this
    // test's polling saw them: some only after the return (the restart landed mid-scale-up).
    const created = (
      await client.request<{ items: { metadata: { creationTimestamp: string } }[] }>({
        path: `/api/v1/namespaces/${ns}/pods`,
      })
    ).items.map((p) => Date.parse(p.metadata.creationTimestamp));
    const createdMs = Math.max(...created) + 1000 - back;
    const afterReturn = created.filter((at) => at >= Math.ceil(back / 1000) * 1000).length;
    expect(afterReturn).toBeGreaterThan(0);
    const convergedMs = await nginxes.converged(replicas, 90_000);

    // The app's caches (read through its cached REST reads and pods endpoint) match what the API server lists.
    type Listed = { items: { metadata: { name: string; resourceVersion: string } }[] };
    const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
    const versions = (list: Listed) =>
      list.items.map((n) => `${n.metadata.name}@${n.metadata.resourceVersion}`).sort();
    const nginxesPath = `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`;
    await waitFor('the cached Nginxes equal to a fresh LIST', async () => {
      const cached = (await (
        await fetch(`${ctl.url}${nginxesPath}?resourceVersion=0`, auth)
      ).json()) as Listed;
      const fresh = await client.request<Listed>({ path: nginxesPath });
      return (
        cached.items.length === count && JSON.stringify(versions(cached)) === JSON.stringify(versions(fresh))
      );
    });
    for (const name of nginxes.names)
      await waitFor(`the cached pods of ${name} equal to a fresh LIST`, async () => {
        const cached = (await (
          await fetch(`${ctl.url}/controlplane/v1/namespaces/${ns}/nginxes/${name}/pods`, auth)
        ).json()) as { items: { name: string; resourceVersion: string }[] };
        const fresh = await client.request<Listed>({
          path: `/api/v1/namespaces/${ns}/pods`,
          query: { labelSelector: `mycompany.com/nginx=${name}` },
        });
        return (
          JSON.stringify(cached.items.map((p) => `${p.name}@${p.resourceVersion}`).sort()) ===
          JSON.stringify(versions(fresh))
        );
      });
    console.log(
      `kube-apiserver restart: down ${restart.stopMs + restart.downMs} ms; ${count} × ${replicas} created ` +
        `${createdMs} ms (${afterReturn} of them after it was back) and Running with status ${convergedMs} ms after it was back`,
    );
  }, 240_000);

  it('relists after etcd compaction and a 410 Gone on its broken watches, losing no change made meanwhile', async () => {
    const [count, replicas, after] = [3, 3, 5];
    const ns = await createNamespace(client, 'chaos-gone', cleanups);
    const proxy = await new FaultProxy().start();
    cleanups.push(() => proxy.close());
    const nginxes = fleet(client, ns, 'web', count);
    const ctl = await controller(ns, { KUBECONFIG: proxy.kubeconfig() });
    await nginxes.create(replicas);
    await nginxes.converged(replicas);
    const listsBefore = await metric(ctl, 'reflector_lists_total');

    // Every watch the controller opens next is answered 410 Gone; its current ones are cut. Meanwhile the fleet is
    // scaled and pods are deleted by hand, and etcd compacted past what the controller last saw.
    proxy.goneWatches.add('/nginxes').add('/pods');
    const cut = proxy.breakWatches();
    await nginxes.scale(after);
    const victims = (
      await client.request<{ items: { metadata: { name: string } }[] }>({
        path: `/api/v1/namespaces/${ns}/pods`,
      })
    ).items
      .slice(0, 2)
      .map((p) => p.metadata.name);
    for (const pod of victims) await kubectl('delete', 'pod', pod, '-n', ns, '--wait=false');
    const revision = compactEtcd();

    await waitFor('both informers to meet the 410', () => proxy.goneWatches.size === 0, {
      timeoutMs: 30_000,
    });
    const ms = await nginxes.converged(after, 60_000);
    expect(cut).toBeGreaterThanOrEqual(2); // the Nginx and the pod watch
    expect(await metric(ctl, 'reflector_lists_total')).toBeGreaterThanOrEqual(listsBefore + 2);
    const { orphans } = await nginxes.census();
    expect(orphans).toEqual([]);
    console.log(
      `410 Gone: ${cut} watches cut, etcd compacted at ${revision}; ${count} × ${after} exact after ${ms} ms`,
    );
  }, 180_000);

  it('converges through an API server that fails 20% of requests (500, 429, stalls), without a request storm', async () => {
    const [count, replicas] = LONG ? [20, 5] : [5, 4];
    const ns = await createNamespace(client, 'chaos-faults', cleanups);
    const proxy = await new FaultProxy().start();
    cleanups.push(() => proxy.close());
    const ctl = await controller(ns, { KUBECONFIG: proxy.kubeconfig(), KUBE_REQUEST_TIMEOUT_SECONDS: '3' });
    await waitFor('caches synced', async () => (await ctl.readiness()).checks.controller.ok, {
      timeoutMs: 30_000,
    });

    const calm = fleet(client, ns, 'calm', count);
    const calmStart = Date.now();
    await calm.create(replicas);
    const calmMs = await calm.converged(replicas);
    await sleep(1000);
    const calmRate = proxy.rate(calmStart, Date.now());

    proxy.faultRate = 0.2;
    const stormy = fleet(client, ns, 'stormy', count);
    const stormStart = Date.now();
    await stormy.create(replicas);
    const stormMs = await stormy.converged(replicas, 180_000);
    await sleep(1000);
    const stormRate = proxy.rate(stormStart, Date.now());
    proxy.faultRate = 0;

    expect((await calm.census()).orphans).toEqual([]);
    expect((await stormy.census()).orphans).toEqual([]);
    expect(proxy.stats.faults['500'] + proxy.stats.faults['429'] + proxy.stats.faults.stall).toBeGreaterThan(
      0,
    );
    // Failures are retried with backoff, not in a hot loop.
    expect(stormRate).toBeLessThan(Math.max(3 * calmRate, calmRate + 30));
    console.log(
      `faults: ${count} × ${replicas} exact in ${calmMs} ms at ${calmRate.toFixed(1)} req/s without faults, in ` +
        `${stormMs} ms at ${stormRate.toFixed(1)} req/s with 20% faults ` +
        `(${JSON.stringify(proxy.stats.faults)} of ${proxy.stats.requests} requests)`,
    );
  }, 300_000);

  it('keeps converging while the audit database is locked, catches up after, and loses nothing at SIGTERM', async () => {
    const lockMs = LONG ? 30_000 : 8_000;
    const ns = await createNamespace(client, 'chaos-audit', cleanups);
    const file = (await databaseFor(ns)).slice('file:'.length);
    const nginxes = fleet(client, ns, 'web', 3);
    const ctl = await controller(ns);
    await nginxes.create(2);
    await nginxes.converged(2);
    await waitFor(
      'audit rows written',
      async () => (await metric(ctl, 'nginx_audit_records_written_total')) > 0,
    );

    // An exclusive transaction locks the file: every write of the app's writer fails until it ends.
    const lock = new Database(file, { timeout: 100 });
    lock.exec('BEGIN EXCLUSIVE');
    const lockedAt = Date.now();
    try {
      await nginxes.scale(4);
      await nginxes.converged(4, 60_000); // the controller does not wait on the database
      await waitFor(
        'a failed audit write',
        async () => (await metric(ctl, 'nginx_audit_write_failures_total')) > 0,
      );
      expect(await metric(ctl, 'nginx_audit_queue_depth')).toBeGreaterThan(0);
      await sleep(Math.max(0, lockMs - (Date.now() - lockedAt)));
    } finally {
      lock.exec('ROLLBACK');
    }
    await waitFor(
      'the writer to catch up',
      async () => (await metric(ctl, 'nginx_audit_queue_depth')) === 0,
      {
        timeoutMs: 30_000,
      },
    );

    // Locked again, more reconciles queue up (a write waits out SQLite's busy timeout, then fails and keeps its
    // rows queued); the lock goes and SIGTERM follows at once: the final flush must keep them.
    const failuresBefore = await metric(ctl, 'nginx_audit_write_failures_total');
    lock.exec('BEGIN EXCLUSIVE');
    let written: number;
    let queued: number;
    let dropped: number;
    try {
      await nginxes.scale(1);
      await nginxes.converged(1, 60_000);
      await waitFor(
        'a failed write of the new rows',
        async () => (await metric(ctl, 'nginx_audit_write_failures_total')) > failuresBefore,
        { timeoutMs: 30_000 },
      );
      [written, queued, dropped] = (await Promise.all(
        [
          'nginx_audit_records_written_total',
          'nginx_audit_queue_depth',
          'nginx_audit_records_dropped_total',
        ].map((m) => metric(ctl, m)),
      )) as [number, number, number];
    } finally {
      lock.exec('ROLLBACK');
    }
    const exit = await ctl.terminate();
    controllers.splice(controllers.indexOf(ctl), 1);
    const rows = (lock.prepare('SELECT COUNT(*) AS n FROM ReconcileRecord').get() as { n: number }).n;
    lock.close();

    expect(exit.killed).toBe(false);
    expect(dropped).toBe(0);
    expect(queued).toBeGreaterThan(0);
    expect(rows).toBeGreaterThanOrEqual(written + queued);
    expect(ctl.output()).not.toContain('audit records lost at shutdown');
    console.log(
      `audit database locked ${lockMs} ms: converged meanwhile; ${queued} rows queued at SIGTERM, all written ` +
        `(${rows} rows in the database, ${written} written before, 0 dropped)`,
    );
  }, 240_000);

  it('finishes the scale-up after the leader is killed, without creating a pod twice', async () => {
    const [count, replicas] = LONG ? [10, 10] : [5, 4];
    const ns = await createNamespace(client, 'chaos-leader', cleanups);
    const recorder = await podRecorder(client, ns);
    cleanups.push(recorder.stop);
    const nginxes = fleet(client, ns, 'web', count);
    // Pod writes paced at 5 a second, so the leader dies in the middle of the scale-up.
    const env = { LEADER_ELECTION: 'true', KUBE_API_QPS: '5', KUBE_API_BURST: '1' };
    const a = await controller(ns, env);
    const b = await controller(ns, env);
    const [leader, standby] = await leaderAndStandby(a, b);
    await nginxes.create(replicas);
    await waitFor('the leader to start creating pods', () => recorder.seen.size > 0, { intervalMs: 5 });
    await leader.kill();
    // Nothing is sent after the kill: pods were still missing when the leader died.
    const podsAtKill = (await nginxes.census()).active;
    expect(podsAtKill).toBeGreaterThan(0);
    expect(podsAtKill).toBeLessThan(count * replicas);
    const ms = await nginxes.converged(replicas, 90_000);
    expect((await standby.readiness()).checks.controller.leader).toBe(true);
    // A marker Nginx, converged after the fleet: by then a late or duplicate create for the fleet would have shown.
    const marker = fleet(client, ns, 'marker', 1);
    await marker.create(1);
    await marker.converged(1);
    // Every pod ever created is one of the final ones (and the marker's).
    expect(recorder.seen.size).toBe(count * replicas + 1);
    expect((await nginxes.census()).orphans).toEqual([]);
    console.log(
      `leader killed with ${podsAtKill}/${count * replicas} pods created; the standby finished ${ms} ms later, ` +
        `${recorder.seen.size} pods created in all (1 the marker's)`,
    );
  }, 240_000);
});
