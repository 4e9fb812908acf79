import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { databaseTarget } from '../apps/api/src/config/database-target.js';
import { AuditDatabase } from '../apps/api/src/audit/audit-database.js';
import type { ReconcileAction } from '../apps/api/src/audit/reconcile-record.js';
import {
  DeletedFinalStateUnknown,
  SharedInformer,
  stripManagedFields,
  type KubeObject,
} from '../libs/kube-runtime/src/index.js';
import type { Nginx } from '../libs/nginx-api/src/index.js';
import { metric, startApp, type AppProcess } from './support/app-process.js';
import { TOKEN_NAMES, nginxManifest, startControlPlane } from './support/control-plane.js';
import {
  POSTGRES_URL,
  migrate,
  postgresAdmin,
  postgresDatabase,
  sqliteDatabase,
  type TestDatabase,
} from './support/database.js';
import { active, createNamedNamespace, deleteNamespace, nginxesIn } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
// A namespace of its own, the only one its controllers watch: other files run side by side.
const NS = uniqueName('nginx-audit');
const ops = nginxesIn(client, NS);
const nginxes = `/apis/mycompany.com/v1/namespaces/${NS}/nginxes`;

beforeAll(() => createNamedNamespace(client, NS, {}));
afterAll(() => deleteNamespace(client, NS));
const cleanups: (() => Promise<unknown>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
});

async function started(env: Record<string, string>): Promise<AppProcess> {
  const api = await startApp({ LEADER_ELECTION: 'false', WEB_MODE: 'off', WATCH_NAMESPACE: NS, ...env });
  cleanups.push(() => api.stop());
  return api;
}

async function database(create: () => Promise<TestDatabase>): Promise<TestDatabase> {
  const db = await create();
  cleanups.push(() => db.drop());
  await migrate(db.url);
  return db;
}

async function createNginx(name: string, replicas: number): Promise<Nginx> {
  cleanups.push(() => ops.delete(name));
  return ops.create(name, replicas);
}

/** Every pod of the Nginx that ever appeared and disappeared, seen by a watch of our own. */
async function watchPods(name: string) {
  const informer = new SharedInformer<V1Pod & KubeObject>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace: NS },
    kind: 'Pod',
    labelSelector: `mycompany.com/nginx=${name}`,
    transform: stripManagedFields,
  });
  const seen = { added: new Set<string>(), deleted: new Set<string>() };
  informer.addEventHandler({
    add: (pod) => seen.added.add(pod.metadata!.name!),
    delete: (pod) =>
      seen.deleted.add(
        pod instanceof DeletedFinalStateUnknown ? pod.key.split('/')[1]! : pod.metadata!.name!,
      ),
  });
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  await informer.waitForCacheSync();
  cleanups.push(async () => {
    abort.abort();
    await running;
  });
  return { seen, pods: () => informer.cache.list() };
}

/** `converged` over our own watch's cache of the pods, so that what the watch saw is complete when it resolves. */
const settled = (name: string, replicas: number, pods: () => readonly V1Pod[]) =>
  ops.converged(name, replicas, 20_000, pods);

describe('the audit trail of the controller', () => {
  it('records exactly the pods it created and deleted, flushed on SIGTERM, with a JSON log line per reconcile', async () => {
    const db = await database(sqliteDatabase);
    const name = uniqueName('audited');
    const { seen, pods } = await watchPods(name);
    const api = await started({ DATABASE_URL: db.url });

    const nginx = await createNginx(name, 3);
    await settled(name, 3, pods);
    await ops.scale(name, 1);
    await settled(name, 1, pods);
    const [survivor] = active(pods());
    await client.request({
      method: 'DELETE',
      path: `/api/v1/namespaces/${NS}/pods/${survivor!.metadata!.name}`,
    });
    await waitFor('a replacement pod', () => seen.added.size === 4);
    await settled(name, 1, pods);
    await api.stop(); // SIGTERM: the writer's queue is flushed before exit

    const audit = await AuditDatabase.connect(databaseTarget(db.url));
    const prisma = await audit.client();
    try {
      const rows = await prisma.reconcileRecord.findMany({ where: { name }, orderBy: { id: 'asc' } });
      const actions = rows.flatMap((row) => JSON.parse(row.actions) as ReconcileAction[]);
      const created = actions.filter((a) => a.kind === 'create').map((a) => a.pod);
      const deleted = actions.filter((a) => a.kind === 'delete');

      expect(new Set(created)).toEqual(seen.added);
      expect(created).toHaveLength(seen.added.size);
      const deletedByHand = survivor!.metadata!.name!;
      expect(new Set(deleted.map((a) => a.pod))).toEqual(
        new Set([...seen.deleted].filter((pod) => pod !== deletedByHand)),
      );
      expect(deleted.every((a) => a.reason === 'scale-down')).toBe(true);
      expect(actions.some((a) => a.kind === 'status')).toBe(true);
      for (const row of rows) {
        expect(row).toMatchObject({ namespace: NS, uid: nginx.metadata.uid });
        // 'requeued': pods were created or deleted and the progress status waits for its second (status pacing).
        expect(['success', 'requeued']).toContain(row.result);
        expect(['nginx-added', 'nginx-updated', 'pod-event', 'owned-changed', 'resync', 'requeue']).toContain(
          row.trigger,
        );
        expect(row.finishedAt.getTime()).toBeGreaterThanOrEqual(row.startedAt.getTime());
      }
      const noops = await prisma.reconcileNoop.findUnique({
        where: { namespace_name: { namespace: NS, name } },
      });
      expect(noops?.count).toBeGreaterThan(0);
    } finally {
      await audit.close();
    }

    const reconcileLines = api
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.message === 'reconciled');
    expect(reconcileLines.every((entry) => typeof entry.key === 'string')).toBe(true);
    expect(reconcileLines.filter((entry) => entry.key === `${NS}/${name}`).length).toBeGreaterThan(0);
  });

  it.skipIf(!POSTGRES_URL)(
    'keeps reconciling while PostgreSQL refuses connections, drops and counts what exceeds its queue, and writes again once it is back',
    async () => {
      const db = (await database(postgresDatabase)) as TestDatabase & { name: string };
      const name = uniqueName('unaudited');
      const { pods } = await watchPods(name);
      // Reconcile records of this test's namespace alone in the two-row queue: no timeline evidence competing
      // for it, nor the records of Nginxes other tests left failing elsewhere in the cluster.
      const api = await started({
        DATABASE_URL: db.url,
        AUDIT_QUEUE_LIMIT: '2',
        AUDIT_TIMELINE: 'false',
      });

      await postgresAdmin(`ALTER DATABASE "${db.name}" ALLOW_CONNECTIONS false`);
      await postgresAdmin(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${db.name}' AND pid <> pg_backend_pid()`,
      );
      cleanups.push(() => postgresAdmin(`ALTER DATABASE "${db.name}" ALLOW_CONNECTIONS true`));

      await createNginx(name, 2);
      await settled(name, 2, pods);
      await ops.scale(name, 4);
      await settled(name, 4, pods);
      // A full queue drops at once; the failed write is counted when the writer's first attempt comes back.
      await waitFor(
        'dropped audit records and the failed write to be counted',
        async () =>
          (await metric(api, 'nginx_audit_records_dropped_total')) > 0 &&
          (await metric(api, 'nginx_audit_write_failures_total')) > 0,
      );
      expect(api.output()).toContain('audit database unavailable: keeping records queued');
      expect(api.output()).toContain('audit queue full');

      await postgresAdmin(`ALTER DATABASE "${db.name}" ALLOW_CONNECTIONS true`);
      await waitFor(
        'the queue to drain',
        async () =>
          (await metric(api, 'nginx_audit_queue_depth')) === 0 &&
          api.output().includes('audit writer caught up'),
        { timeoutMs: 15_000 },
      );
      const droppedBefore = await metric(api, 'nginx_audit_records_dropped_total');
      const back = new Date();
      await ops.scale(name, 1);
      await settled(name, 1, pods);
      const audit = await AuditDatabase.connect(databaseTarget(db.url));
      const prisma = await audit.client();
      try {
        // Every delete recorded; under load a burst of reconciles can still overflow the two-row queue (dropped and
        // counted, as designed): then at least some record written after the outage.
        await waitFor('the scale-down to be recorded', async () => {
          const rows = await prisma.reconcileRecord.findMany({ where: { name, startedAt: { gte: back } } });
          const deleted = rows
            .flatMap((row) => JSON.parse(row.actions) as ReconcileAction[])
            .filter((a) => a.kind === 'delete').length;
          const dropped = (await metric(api, 'nginx_audit_records_dropped_total')) - droppedBefore;
          if (deleted === 3 || (dropped > 0 && rows.length > 0)) return true;
          throw new Error(`${rows.length} records since the outage, ${deleted} deletes, ${dropped} dropped`);
        });
        // What the full queue dropped is not silent: a gap in this Nginx's timeline, with how many.
        const gaps = await prisma.timelineEntry.findMany({ where: { kind: 'gap', nginx: name } });
        expect(gaps.length).toBeGreaterThan(0);
        for (const gap of gaps)
          expect(gap).toMatchObject({ what: 'audit-queue-overflow', namespace: NS, type: 'Warning' });
        expect(gaps.reduce((sum, gap) => sum + gap.count!, 0)).toBeGreaterThan(0);
      } finally {
        await audit.close();
      }
    },
  );
});

describe('the change audit on PostgreSQL', () => {
  it.skipIf(!POSTGRES_URL)(
    'records an editor’s refused create whose name holds NUL and a lone surrogate, sanitised, and keeps writing the rows after it',
    async () => {
      const db = await database(postgresDatabase);
      const cp = await startControlPlane({ DATABASE_URL: db.url });
      cleanups.push(() => cp.stop());
      const since = new Date(Date.now() - 1_000).toISOString();
      const prefix = uniqueName('nul');
      const create = (name: string) =>
        cp.as('editor')(nginxes, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(nginxManifest(name, 0)), // JSON escapes both: \u0000 and \ud800 reach the app
        });

      const refused = await create(`${prefix}\u0000\ud800`);
      expect(refused.status).toBe(422);
      const name = uniqueName('after-nul');
      cleanups.push(() => ops.delete(name));
      expect((await create(name)).status).toBe(201);

      type Change = {
        actor: string;
        name: string;
        verb: string;
        code: number;
        reason: string | null;
        message: string | null;
      };
      const changes = await waitFor('both creates in the change audit', async () => {
        const list = (await (
          await cp.as('viewer')(`/controlplane/v1/audit/changes?namespace=${NS}&verb=create&since=${since}`)
        ).json()) as { items?: Change[] };
        const ours = (list.items ?? []).filter((c) => c.name.startsWith(prefix) || c.name === name);
        return ours.length === 2 && ours;
      });
      const clean = `${prefix}\uFFFD\uFFFD`;
      expect(changes).toEqual([
        expect.objectContaining({ actor: TOKEN_NAMES.editor, name, verb: 'create', code: 201 }),
        expect.objectContaining({
          actor: TOKEN_NAMES.editor,
          name: clean,
          verb: 'create',
          code: 422,
          reason: 'Invalid',
        }),
      ]);
      expect(changes[1]!.message).toContain(`"${clean}" is invalid`);
      const stored = changes.map((c) => `${c.name} ${c.message ?? ''}`).join(' ');
      expect(stored.includes('\u0000') || /\p{Cs}/u.test(stored)).toBe(false);
      await waitFor('the queue to drain', async () => (await metric(cp, 'nginx_audit_queue_depth')) === 0);
      expect(await metric(cp, 'nginx_audit_records_rejected_total')).toBe(0);
      expect(await metric(cp, 'nginx_audit_records_dropped_total')).toBe(0);
      expect(await metric(cp, 'nginx_audit_write_failures_total')).toBe(0);
    },
  );
});
