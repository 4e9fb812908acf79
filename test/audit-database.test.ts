import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  POSTGRES_URL,
  migrate,
  postgresDatabase,
  sqliteDatabase,
  type TestDatabase,
} from './support/database.js';
import { ROOT } from './support/paths.js';
import { waitFor } from './support/wait.js';
import { databaseTarget } from '../apps/api/src/config/database-target.js';
import { AuditRefusedError, AuditWriter } from '../apps/api/src/audit/audit-writer.js';
import { PrismaAuditSink } from '../apps/api/src/audit/prisma-audit-sink.js';
import { AuditDatabase } from '../apps/api/src/audit/audit-database.js';
import { recordedWrites } from '../apps/api/src/audit/recorded-writes.js';
import type { AuditPrismaClient } from '../apps/api/src/audit/prisma-client.js';
import type { ChangeRecordRow } from '../apps/api/src/audit/change-record.js';
import type { ReconcileRecordRow } from '../apps/api/src/audit/reconcile-record.js';
import type { TimelineEntryRow } from '../apps/api/src/audit/timeline-entry.js';

/** An outage as the writer sees it: the database to write to while it lasts, and how it ends. */
interface Outage {
  client: AuditDatabase;
  end(): Promise<void>;
}

/**
 * A fresh, empty database per provider; PostgreSQL gets its own throwaway database on the test server. Per
 * provider too: a refusal no sanitising prevents (a CHECK constraint on PostgreSQL, a trigger's RAISE on SQLite,
 * added to this test database only, refusing change records named `refused-by-db`), and an outage (a closed port
 * on PostgreSQL, whose server the other tests share; an exclusive lock on the SQLite file, so a write waits out
 * the busy timeout, about 5 s).
 */
const providers = [
  {
    name: 'sqlite',
    available: true,
    create: sqliteDatabase,
    refuse: [
      `CREATE TRIGGER audit_test_refuse BEFORE INSERT ON "ChangeRecord" WHEN NEW.name = 'refused-by-db'
       BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      'DROP TRIGGER audit_test_refuse',
    ],
    outage: async (url: string, audit: AuditDatabase): Promise<Outage> => {
      const lock = new Database(url.slice('file:'.length));
      lock.exec('BEGIN EXCLUSIVE');
      return {
        client: audit,
        end: async () => {
          lock.exec('ROLLBACK');
          lock.close();
        },
      };
    },
  },
  {
    name: 'postgresql',
    available: Boolean(POSTGRES_URL),
    create: postgresDatabase,
    refuse: [
      `ALTER TABLE "ChangeRecord" ADD CONSTRAINT audit_test_refuse CHECK (name <> 'refused-by-db')`,
      'ALTER TABLE "ChangeRecord" DROP CONSTRAINT audit_test_refuse',
    ],
    outage: async (): Promise<Outage> => {
      const unreachable = await AuditDatabase.connect(
        databaseTarget('postgresql://ngx:ngx@127.0.0.1:1/none'),
      );
      return { client: unreachable, end: () => unreachable.close() };
    },
  },
];

/** The writer's counters and log, to see what it wrote, dropped and refused. */
function observed() {
  return {
    metrics: { depth: vi.fn(), written: vi.fn(), dropped: vi.fn(), rejected: vi.fn(), failed: vi.fn() },
    logger: { info: vi.fn(), warn: vi.fn(), error: vi.fn() },
  };
}

const record = (name: string, startedAt: Date, overrides: Record<string, unknown> = {}) => ({
  startedAt,
  finishedAt: new Date(startedAt.getTime() + 12),
  durationMs: 12,
  namespace: 'default',
  name,
  uid: '0f5c0a3e-1111-2222-3333-444455556666',
  generation: 3,
  resourceVersion: '1234',
  trigger: 'nginx-updated',
  desiredReplicas: 3,
  activeReplicas: 1,
  readyReplicas: 1,
  actions: JSON.stringify([{ kind: 'create', pod: `${name}-abcde` }]),
  result: 'success',
  instanceId: 'test-instance',
  ...overrides,
});

const change = (name: string, at: Date, overrides: Partial<ChangeRecordRow> = {}): ChangeRecordRow => ({
  at,
  actor: 'alice',
  role: 'editor',
  actorEmail: null,
  actorGroups: null,
  authenticatedBy: null,
  verb: 'patch',
  namespace: 'default',
  name,
  subresource: null,
  patchType: 'application/merge-patch+json',
  specBefore: JSON.stringify({ replicas: 1 }),
  specAfter: JSON.stringify({ replicas: 3 }),
  code: 200,
  reason: null,
  message: null,
  uid: '0f5c0a3e-1111-2222-3333-444455556666',
  resourceVersion: '1235',
  userAgent: 'kubectl/v1.36.3',
  door: 'controlplane',
  source: 'controlplane',
  auditId: null,
  kubeUser: null,
  kubeGroups: null,
  impersonator: null,
  fieldManager: null,
  generation: null,
  joinKey: null,
  completes: null,
  dedupeKey: null,
  ...overrides,
});

for (const provider of providers) {
  describe.skipIf(!provider.available)(`audit database on ${provider.name}`, () => {
    let database: TestDatabase;
    let audit: AuditDatabase;
    /** Prisma's client over the audit database's own connection, as the app reads with it. */
    let prisma: AuditPrismaClient;

    beforeAll(async () => {
      database = await provider.create();
      const output = await migrate(database.url);
      expect(output).toMatch(/All migrations have been successfully applied/);
      audit = await AuditDatabase.connect(databaseTarget(database.url));
      prisma = await audit.client();
    });
    afterAll(async () => {
      await audit?.close();
      await database?.drop();
    });

    it('applies migrations once: a second deploy has nothing to do', async () => {
      expect(await migrate(database.url)).toMatch(/No pending migrations to apply/);
    });

    it('stores reconcile records and reads them back newest first', async () => {
      const base = new Date('2026-11-22T10:00:00.000Z');
      await prisma.reconcileRecord.create({ data: record('web', base) });
      await prisma.reconcileRecord.create({
        data: record('web', new Date(base.getTime() + 1000), {
          result: 'error',
          error: 'pods is forbidden',
          attempt: 2,
        }),
      });

      const rows = await prisma.reconcileRecord.findMany({
        where: { namespace: 'default', name: 'web' },
        orderBy: { startedAt: 'desc' },
      });
      expect(rows.map((row) => [row.result, row.attempt, row.error])).toEqual([
        ['error', 2, 'pods is forbidden'],
        ['success', 1, null],
      ]);
      expect(rows[1]?.startedAt.toISOString()).toBe(base.toISOString());
      expect(JSON.parse(rows[1]!.actions)).toEqual([{ kind: 'create', pod: 'web-abcde' }]);
    });

    it('rejects an incomplete record and writes nothing', async () => {
      const before = await prisma.reconcileRecord.count();
      const { result: _omitted, ...incomplete } = record('broken', new Date());
      await expect(
        prisma.reconcileRecord.create({
          data: incomplete as Parameters<typeof prisma.reconcileRecord.create>[0]['data'],
        }),
      ).rejects.toThrow(/result/);
      expect(await prisma.reconcileRecord.count()).toBe(before);
    });

    it('writes a batch of records and no-op counts in one transaction, adding to earlier counts', async () => {
      const sink = new PrismaAuditSink(audit);
      const at = new Date('2026-11-22T11:00:00.000Z');
      const rows = ['batch-a', 'batch-b'].map((name) => record(name, at) as ReconcileRecordRow);
      await sink.write({
        rows,
        changes: [],
        noops: [{ namespace: 'default', name: 'quiet', count: 3, lastAt: at }],
      });
      const later = new Date(at.getTime() + 60_000);
      await sink.write({
        rows: [],
        changes: [],
        noops: [{ namespace: 'default', name: 'quiet', count: 2, lastAt: later }],
      });

      expect(await prisma.reconcileRecord.count({ where: { name: { startsWith: 'batch-' } } })).toBe(2);
      expect(
        await prisma.reconcileNoop.findUnique({
          where: { namespace_name: { namespace: 'default', name: 'quiet' } },
        }),
      ).toEqual({ namespace: 'default', name: 'quiet', count: 5, lastAt: later });
    });

    it('adds refusal counts of the same window and key up, widening their times and keeping the first message', async () => {
      const sink = new PrismaAuditSink(audit);
      const windowStart = new Date('2026-11-29T10:00:00.000Z');
      const at = (seconds: number) => new Date(windowStart.getTime() + seconds * 1000);
      const count = (from: number, to: number, n: number, message: string) => ({
        windowStart,
        door: 'rest',
        code: 401,
        reason: 'bad-token',
        subject: '',
        address: '10.9.9.9',
        count: n,
        firstAt: at(from),
        lastAt: at(to),
        message,
      });
      // Alone (counters only), then beside a record (in the chained transaction), as another instance would.
      await sink.write({ rows: [], changes: [], noops: [], refusals: [count(10, 20, 3, 'first')] });
      await sink.write({
        rows: [record('refusal-beside', at(30)) as ReconcileRecordRow],
        changes: [],
        noops: [],
        refusals: [count(5, 40, 2, 'second'), { ...count(1, 1, 1, 'other'), code: 403, reason: 'role' }],
      });
      const rows = await prisma.refusalCount.findMany({
        where: { address: '10.9.9.9' },
        orderBy: { id: 'asc' },
      });
      expect(rows.map(({ id: _id, ...row }) => row)).toEqual([
        { ...count(5, 40, 5, 'first') },
        { ...count(1, 1, 1, 'other'), code: 403, reason: 'role' },
      ]);
    });

    it('stores nothing of a batch when one of its records is refused', async () => {
      const sink = new PrismaAuditSink(audit);
      const at = new Date();
      const good = record('atomic-good', at) as ReconcileRecordRow;
      const bad = { ...record('atomic-bad', at), durationMs: 'slow' } as unknown as ReconcileRecordRow;
      const noop = { namespace: 'default', name: 'atomic-noop', count: 1, lastAt: at };
      await expect(sink.write({ rows: [good, bad], changes: [], noops: [noop] })).rejects.toBeInstanceOf(
        AuditRefusedError,
      );
      expect(await prisma.reconcileRecord.count({ where: { name: { startsWith: 'atomic-' } } })).toBe(0);
      expect(await prisma.reconcileNoop.count({ where: { name: 'atomic-noop' } })).toBe(0);
    });

    it('writes change records in the same transaction as reconcile records and no-op counts', async () => {
      const sink = new PrismaAuditSink(audit);
      const at = new Date('2026-11-22T12:00:00.000Z');
      const create = change('change-web', at, {
        actorEmail: 'alice@example.com',
        actorGroups: '["dev","system:authenticated"]',
        authenticatedBy: 'oidc',
        verb: 'create',
        patchType: null,
        specBefore: null,
        code: 201,
        resourceVersion: '1',
      });
      const refused = change('change-web', new Date(at.getTime() + 1), {
        actor: 'bob',
        role: 'viewer',
        specAfter: null,
        code: 403,
        reason: 'Forbidden',
        message: 'bob (role viewer) may not PATCH',
        uid: null,
        resourceVersion: null,
        userAgent: null,
      });
      await sink.write({
        rows: [record('change-web', at) as ReconcileRecordRow],
        changes: [create, refused],
        noops: [{ namespace: 'default', name: 'change-quiet', count: 1, lastAt: at }],
      });
      const stored = await prisma.changeRecord.findMany({
        where: { name: 'change-web' },
        orderBy: { id: 'asc' },
      });
      expect(stored.map(({ id: _id, chainSeq: _seq, hash: _hash, ...row }) => row)).toEqual([
        create,
        refused,
      ]);
      expect(stored[1]!.chainSeq).toBe(stored[0]!.chainSeq! + 1);
      expect(await prisma.reconcileRecord.count({ where: { name: 'change-web' } })).toBe(1);

      const bad = { ...change('change-bad', at), code: 'teapot' } as unknown as ChangeRecordRow;
      await expect(
        sink.write({
          rows: [record('change-bad', at) as ReconcileRecordRow],
          changes: [change('change-bad', at), bad],
          noops: [],
        }),
      ).rejects.toBeInstanceOf(AuditRefusedError);
      expect(await prisma.changeRecord.count({ where: { name: 'change-bad' } })).toBe(0);
      expect(await prisma.reconcileRecord.count({ where: { name: 'change-bad' } })).toBe(0);
    });

    it("completes a change's first record by its join keys, in the same batch or a later one, and stores a keyed record once", async () => {
      const sink = new PrismaAuditSink(audit);
      const at = new Date('2026-11-23T12:00:00.000Z');
      const first = change('joined', at, { auditId: 'ngx-rest-1', joinKey: 'request:ngx-rest-1' });
      const completing = (dedupeKey: string, keys: string[]) =>
        change('joined', at, {
          actor: 'control-plane',
          role: '',
          door: 'controlplane',
          source: 'audit-webhook',
          kubeUser: 'control-plane',
          dedupeKey,
          completesKeys: keys,
        });
      await sink.write({
        rows: [],
        changes: [first, completing('kube:a', ['request:ngx-rest-1'])],
        noops: [],
      });
      await sink.write({ rows: [], changes: [completing('kube:a', ['request:ngx-rest-1'])], noops: [] });
      await sink.write({
        rows: [],
        changes: [
          completing('kube:b', ['request:nobody', 'generation:x/1']),
          completing('kube:b', ['request:nobody']),
        ],
        noops: [],
      });
      const stored = await prisma.changeRecord.findMany({
        where: { name: 'joined' },
        orderBy: { id: 'asc' },
      });
      expect(stored.map((row) => [row.dedupeKey, row.completes])).toEqual([
        [null, null],
        ['kube:a', stored[0]!.id],
        ['kube:b', null],
      ]);
    });

    it('answers which writes a successful change record of any door covers: by uid and resourceVersion, a delete by uid', async () => {
      const sink = new PrismaAuditSink(audit);
      const at = new Date('2026-11-26T08:00:00.000Z');
      const covered = (uid: string, overrides: Partial<ChangeRecordRow>) =>
        change('covered', at, { uid, ...overrides });
      await sink.write({
        rows: [],
        changes: [
          covered('uid-a', { verb: 'create', code: 201, resourceVersion: '10' }),
          covered('uid-a', { verb: 'patch', code: 200, resourceVersion: '11' }),
          covered('uid-a', { verb: 'patch', code: 409, resourceVersion: '12' }),
          covered('uid-b', { verb: 'delete', code: 200, resourceVersion: '20' }),
          covered('uid-c', { verb: 'deletecollection', code: 200, resourceVersion: null }),
          covered('uid-d', { verb: 'update', code: 200, resourceVersion: '11' }),
        ],
        noops: [],
      });
      const found = await recordedWrites(audit, [
        { uid: 'uid-a', resourceVersion: '10', key: 'a@10' },
        { uid: 'uid-a', resourceVersion: '11', key: 'a@11' },
        { uid: 'uid-a', resourceVersion: '12', key: 'a@12 refused' },
        { uid: 'uid-a', resourceVersion: '20', key: 'a@20 is b' },
        { uid: 'uid-a', deleted: true, key: 'a deleted' },
        { uid: 'uid-b', deleted: true, key: 'b deleted' },
        { uid: 'uid-c', deleted: true, key: 'c deleted' },
        { uid: 'uid-d', resourceVersion: '10', key: 'd@10' },
        { uid: 'uid-e', resourceVersion: '10', key: 'e unknown' },
      ]);
      expect([...found].sort()).toEqual(['a@10', 'a@11', 'b deleted', 'c deleted']);
      expect(await recordedWrites(audit, [])).toEqual(new Set());
    });

    it('stores a change record with NUL and lone surrogates through the writer, sanitised, and the rows after it', async () => {
      const { metrics, logger } = observed();
      const writer = new AuditWriter({
        sink: new PrismaAuditSink(audit),
        metrics,
        logger,
        flushIntervalMs: 10,
      });
      const at = new Date('2026-11-22T13:00:00.000Z');
      const hostile = 'nul-\u0000-web\ud800';
      writer.change(
        change(hostile, at, {
          verb: 'create',
          patchType: null,
          specBefore: null,
          specAfter: null,
          code: 422,
          reason: 'Invalid',
          message: `Nginx.mycompany.com "${hostile}" is invalid: metadata.name: Invalid value: "${hostile}"`,
          uid: null,
          resourceVersion: null,
          userAgent: 'fuzz\u0000\udfff',
        }),
      );
      writer.record(record('nul-after', at, { error: 'e\u0000', actions: '[]' }) as ReconcileRecordRow);
      writer.change(change('nul-after', new Date(at.getTime() + 1)));
      writer.noop('default', 'nul-\u0000quiet', at);
      await writer.close();

      expect(writer.queued).toBe(0);
      expect(metrics.dropped).not.toHaveBeenCalled();
      expect(metrics.rejected).not.toHaveBeenCalled();
      expect(metrics.failed).not.toHaveBeenCalled();
      expect(logger.error).not.toHaveBeenCalled();
      const stored = await prisma.changeRecord.findMany({
        where: { name: { startsWith: 'nul-' } },
        orderBy: { id: 'asc' },
      });
      const clean = 'nul-\uFFFD-web\uFFFD';
      expect(stored.map((row) => [row.name, row.code])).toEqual([
        [clean, 422],
        ['nul-after', 200],
      ]);
      expect(stored[0]).toMatchObject({
        message: `Nginx.mycompany.com "${clean}" is invalid: metadata.name: Invalid value: "${clean}"`,
        userAgent: 'fuzz\uFFFD\uFFFD',
      });
      const reconcile = await prisma.reconcileRecord.findFirstOrThrow({ where: { name: 'nul-after' } });
      expect(reconcile.error).toBe('e\uFFFD');
      expect(await prisma.reconcileNoop.findMany({ where: { name: { startsWith: 'nul-' } } })).toEqual([
        { namespace: 'default', name: 'nul-\uFFFDquiet', count: 1, lastAt: at },
      ]);
    });

    it('isolates a row the database refuses: the rest of its batch and later rows are stored, it is counted once', async () => {
      const [addRefusal, dropRefusal] = provider.refuse;
      await prisma.$executeRawUnsafe(addRefusal!);
      try {
        const { metrics, logger } = observed();
        const writer = new AuditWriter({
          sink: new PrismaAuditSink(audit),
          metrics,
          logger,
          flushIntervalMs: 60_000,
        });
        const at = new Date('2026-11-22T14:00:00.000Z');
        writer.change(change('iso-a', at));
        writer.change(change('refused-by-db', at, { specAfter: '{"replicas":"secret"}' }));
        writer.record(record('iso-b', at) as ReconcileRecordRow);
        writer.change(change('iso-c', at));
        writer.noop('default', 'iso-quiet', at);
        expect(await writer.flush()).toBe(true);
        writer.change(change('iso-d', at));
        expect(await writer.flush()).toBe(true);
        await writer.close();

        const changes = await prisma.changeRecord.findMany({
          where: { name: { in: ['iso-a', 'iso-c', 'iso-d', 'refused-by-db'] } },
          orderBy: { id: 'asc' },
        });
        expect(changes.map((row) => row.name)).toEqual(['iso-a', 'iso-c', 'iso-d']);
        expect(await prisma.reconcileRecord.count({ where: { name: 'iso-b' } })).toBe(1);
        expect(await prisma.reconcileNoop.count({ where: { name: 'iso-quiet' } })).toBe(1);
        expect(writer.queued).toBe(0);
        expect(metrics.rejected).toHaveBeenCalledTimes(1);
        expect(metrics.dropped).not.toHaveBeenCalled();
        expect(logger.error).toHaveBeenCalledTimes(1);
        expect(logger.error).toHaveBeenCalledWith('audit record refused by the database: dropped', {
          kind: 'change',
          namespace: 'default',
          name: 'refused-by-db',
          at,
          reason: expect.stringMatching(
            /^(23514 .*audit_test_refuse|SQLITE_CONSTRAINT_TRIGGER refused by the test)/,
          ),
        });
        expect(JSON.stringify(logger.error.mock.calls)).not.toContain('secret');
      } finally {
        await prisma.$executeRawUnsafe(dropRefusal!);
      }
    });

    it('tells the real errors apart: a raw NUL is refused on PostgreSQL, an outage keeps every row queued', async () => {
      const sink = new PrismaAuditSink(audit);
      const raw = change('raw-\u0000', new Date());
      if (provider.name === 'postgresql') {
        const refusal = await sink
          .write({ rows: [], changes: [raw], noops: [] })
          .catch((error: unknown) => error);
        expect(refusal).toBeInstanceOf(AuditRefusedError);
        expect((refusal as AuditRefusedError).reason).toMatch(/^22021 /);
      } else await sink.write({ rows: [], changes: [raw], noops: [] }); // SQLite stores NUL

      const outage = await provider.outage(database.url, audit);
      let client = outage.client;
      const { metrics, logger } = observed();
      const writer = new AuditWriter({
        sink: { write: (batch) => new PrismaAuditSink(client).write(batch) },
        metrics,
        logger,
        flushIntervalMs: 60_000,
      });
      const at = new Date('2026-11-22T15:00:00.000Z');
      try {
        for (const name of ['away-a', 'away-b']) writer.change(change(name, at));
        writer.record(record('away-c', at) as ReconcileRecordRow);
        expect(await writer.flush()).toBe(false);
        expect(writer.queued).toBe(3);
        expect(metrics.failed).toHaveBeenCalledTimes(1);
        expect(logger.error).toHaveBeenCalledWith(
          'audit database unavailable: keeping records queued',
          expect.anything(),
        );
      } finally {
        await outage.end();
      }
      client = audit;
      expect(await writer.flush()).toBe(true);
      await writer.close();
      expect(metrics.rejected).not.toHaveBeenCalled();
      expect(metrics.dropped).not.toHaveBeenCalled();
      expect(await prisma.changeRecord.count({ where: { name: { startsWith: 'away-' } } })).toBe(2);
      expect(await prisma.reconcileRecord.count({ where: { name: 'away-c' } })).toBe(1);
    });

    it("writes, prunes, pings and looks up recorded writes without loading Prisma's client, which reads what was written once asked for", async () => {
      // A process of its own, on the built app, so that what it loaded is its own: the client's generated module
      // and query compiler are what the app spares while nothing reads the audit trail.
      const script = `
        import { createRequire } from 'node:module';
        import { AuditDatabase } from './apps/api/dist/audit/audit-database.js';
        import { PrismaAuditSink } from './apps/api/dist/audit/prisma-audit-sink.js';
        import { databaseTarget } from './apps/api/dist/config/database-target.js';
        import { recordedWrites } from './apps/api/dist/audit/recorded-writes.js';
        const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => /generated[\\/]prisma-|@prisma[\\/]client/.test(path));
        const audit = await AuditDatabase.connect(databaseTarget(process.env.DATABASE_URL));
        const sink = new PrismaAuditSink(audit);
        const lastAt = new Date('2026-11-24T10:00:00.123Z');
        await sink.write({ rows: [], changes: [], noops: [{ namespace: 'default', name: 'lazy-client', count: 2, lastAt }] });
        await sink.prune(new Date(0));
        await audit.ping();
        await recordedWrites(audit, [{ uid: 'lazy-client', resourceVersion: '1', key: 'lazy-client@1' }]);
        const before = loaded();
        const row = await (await audit.client()).reconcileNoop.findUnique({ where: { namespace_name: { namespace: 'default', name: 'lazy-client' } } });
        console.log(JSON.stringify({ before, after: loaded(), count: row.count, lastAt: row.lastAt.toISOString() }));
        await audit.close();
      `;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: database.url },
      });
      expect(JSON.parse(stdout)).toEqual({
        before: false,
        after: true,
        count: 2,
        lastAt: '2026-11-24T10:00:00.123Z',
      });
    });

    describe('hash chains', () => {
      /** A database of the test's own: these tests alter and remove records, which breaks the chains. */
      async function own(): Promise<{ audit: AuditDatabase; prisma: AuditPrismaClient; url: string }> {
        const created = await provider.create();
        ownDatabases.push(created);
        await migrate(created.url);
        const connected = await AuditDatabase.connect(databaseTarget(created.url));
        ownConnections.push(connected);
        return { audit: connected, prisma: await connected.client(), url: created.url };
      }
      const ownDatabases: TestDatabase[] = [];
      const ownConnections: AuditDatabase[] = [];
      afterAll(async () => {
        for (const connection of ownConnections) await connection.close();
        for (const created of ownDatabases) await created.drop();
      });

      /** `npm run audit:verify` against `url`: its exit code and what it printed. */
      async function verify(url: string): Promise<{ code: number; output: string }> {
        try {
          const { stdout } = await promisify(execFile)('npm', ['run', '--silent', 'audit:verify'], {
            cwd: ROOT,
            env: { ...process.env, DATABASE_URL: url },
          });
          return { code: 0, output: stdout };
        } catch (error) {
          const failed = error as { code: number; stdout: string; stderr: string };
          return { code: failed.code, output: failed.stdout + failed.stderr };
        }
      }

      const entry = (pod: string, at: Date, dedupeKey: string): TimelineEntryRow => ({
        at,
        namespace: 'default',
        nginx: 'chained',
        kind: 'pod',
        what: 'created',
        pod,
        dedupeKey,
      });

      it('links every record it stores into its stream, stores a retried batch once, and audit:verify names the first broken link', async () => {
        const { audit: own1, prisma: read, url } = await own();
        const sink = new PrismaAuditSink(own1);
        const at = new Date('2026-11-26T09:00:00.000Z');
        const batch = {
          rows: [record('chained', at) as ReconcileRecordRow, record('chained', at) as ReconcileRecordRow],
          changes: [
            change('chained', at, { auditId: 'ngx-rest-9', joinKey: 'request:ngx-rest-9' }),
            change('chained', at, {
              source: 'audit-webhook',
              dedupeKey: 'kube:9',
              completesKeys: ['request:ngx-rest-9'],
            }),
            change('chained', at, { door: 'kube-apiserver', source: 'audit-webhook', dedupeKey: 'kube:10' }),
          ],
          entries: [entry('chained-a', at, 'pod:a'), entry('chained-b', at, 'pod:b')],
          noops: [],
        };
        await sink.write(batch);
        // kube-apiserver sending the same events again (its records are keyed), with one new entry.
        await sink.write({
          rows: [],
          changes: batch.changes.filter((row) => row.dedupeKey),
          entries: [...batch.entries, entry('chained-c', at, 'pod:c')],
          noops: [],
        });

        const changes = await read.changeRecord.findMany({ orderBy: { chainSeq: 'asc' } });
        expect(changes.map((row) => [row.chainSeq, row.dedupeKey, row.completes])).toEqual([
          [1, null, null],
          [2, 'kube:10', null],
          [3, 'kube:9', changes[0]!.id],
        ]);
        const heads = await read.auditChainHead.findMany({ orderBy: { stream: 'asc' } });
        expect(heads.map((head) => [head.stream, head.seq])).toEqual([
          ['changes', 3],
          ['reconciles', 2],
          ['timeline', 3],
        ]);
        let result = await verify(url);
        expect(result).toMatchObject({ code: 0 });
        expect(result.output).toContain('changes: 3 records intact (1…3)');
        expect(result.output).toContain('reconciles: 2 records intact (1…2)');
        expect(result.output).toContain('timeline: 3 records intact (1…3)');

        await read.$executeRawUnsafe(`UPDATE "ChangeRecord" SET "actor" = 'mallory' WHERE "chainSeq" = 2`);
        await read.$executeRawUnsafe(`DELETE FROM "TimelineEntry" WHERE "chainSeq" = 2`);
        await read.$executeRawUnsafe(`DELETE FROM "ReconcileRecord" WHERE "chainSeq" = 2`);
        result = await verify(url);
        expect(result.code).toBe(1);
        expect(result.output).toContain(`changes: BROKEN at 2 (altered): record ${changes[1]!.id}:`);
        expect(result.output).toContain('timeline: BROKEN at 2 (missing): no record at 2');
        expect(result.output).toContain('reconciles: BROKEN at 2 (tail-removed)');
      });

      it('stores the person behind a change in the chain: read back, audit:verify holds, and changing who is seen', async () => {
        const { audit: mine, prisma: read, url } = await own();
        const sink = new PrismaAuditSink(mine);
        const at = new Date('2026-11-28T09:00:00.000Z');
        await sink.write({
          rows: [],
          changes: [
            change('person', at, { actor: 'ci', authenticatedBy: 'static-token' }),
            change('person', at, {
              actor: 'oidc:alice',
              actorEmail: 'alice@example.com',
              actorGroups: '["oidc:platform","system:authenticated"]',
              authenticatedBy: 'oidc',
            }),
            // Another door names no person (as records stored before these columns).
            change('person', at, {
              door: 'kube-apiserver',
              source: 'audit-webhook',
              dedupeKey: 'kube:person',
            }),
          ],
          entries: [],
          noops: [],
        });
        const stored = await read.changeRecord.findMany({ orderBy: { chainSeq: 'asc' } });
        expect(
          stored.map((row) => [row.actor, row.actorEmail, row.actorGroups, row.authenticatedBy]),
        ).toEqual([
          ['ci', null, null, 'static-token'],
          ['oidc:alice', 'alice@example.com', '["oidc:platform","system:authenticated"]', 'oidc'],
          ['alice', null, null, null],
        ]);
        expect(await verify(url)).toMatchObject({ code: 0 });

        await read.$executeRawUnsafe(
          `UPDATE "ChangeRecord" SET "actorGroups" = '["system:masters"]' WHERE "chainSeq" = 2`,
        );
        const result = await verify(url);
        expect(result.code).toBe(1);
        expect(result.output).toContain(`changes: BROKEN at 2 (altered): record ${stored[1]!.id}:`);
      });

      it('verifies a chain stored before the person columns (left NULL by their migration), and continues it', async () => {
        const { audit: mine, prisma: read, url } = await own();
        // A change record as the chain of commit 4215f4a stored it, with the hash that version computed.
        const before = '79503a8212fcbc7a5a0dc19f34434bb688eada3146861dd31d9515cd23675705';
        await read.changeRecord.create({
          data: {
            ...withoutCompletesKeys(
              change('before-people', new Date('2026-11-26T10:00:00.000Z'), {
                actor: 'eve',
                specBefore: '{"replicas":1}',
                specAfter: '{"replicas":2}',
                uid: null,
                resourceVersion: '5',
                userAgent: 'curl/8',
              }),
            ),
            chainSeq: 1,
            hash: before,
          },
        });
        await read.auditChainHead.create({ data: { stream: 'changes', seq: 1, hash: before } });
        expect((await verify(url)).output).toContain('changes: 1 records intact (1…1)');

        await new PrismaAuditSink(mine).write({
          rows: [],
          changes: [
            change('after-people', new Date(), { authenticatedBy: 'serviceaccount', actorGroups: '[]' }),
          ],
          noops: [],
        });
        const result = await verify(url);
        expect(result).toMatchObject({ code: 0 });
        expect(result.output).toContain('changes: 2 records intact (1…2)');
      });

      it('keeps one gapless chain per stream while two processes write at once', async () => {
        const { audit: mine, prisma: read, url } = await own();
        const at = '2026-11-26T09:30:00.000Z';
        const batch = (who: string, index: number) => ({
          rows: [record(`${who}-${index}`, new Date(at)) as ReconcileRecordRow],
          changes: [change(`${who}-${index}`, new Date(at))],
          entries: [entry(`${who}-${index}`, new Date(at), `${who}:${index}`)],
          noops: [],
        });
        // The other process: the built sink, writing its batches as fast as it can.
        const script = `
          import { AuditDatabase } from './apps/api/dist/audit/audit-database.js';
          import { PrismaAuditSink } from './apps/api/dist/audit/prisma-audit-sink.js';
          import { databaseTarget } from './apps/api/dist/config/database-target.js';
          const audit = await AuditDatabase.connect(databaseTarget(process.env.DATABASE_URL));
          const sink = new PrismaAuditSink(audit);
          const batches = JSON.parse(process.env.BATCHES, (key, value) => (key === 'at' || key === 'startedAt' || key === 'finishedAt' ? new Date(value) : value));
          for (const batch of batches) {
            await sink.write(batch);
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
          await audit.close();
        `;
        const other = promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
          cwd: ROOT,
          env: {
            ...process.env,
            DATABASE_URL: url,
            BATCHES: JSON.stringify(Array.from({ length: 20 }, (_, index) => batch('two', index))),
          },
        });
        await waitFor('the other process to write', async () => (await read.timelineEntry.count()) > 0, {
          intervalMs: 5,
        });
        const sink = new PrismaAuditSink(mine);
        for (let index = 0; index < 20; index++) {
          await sink.write(batch('one', index));
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await other;

        const stored = await read.timelineEntry.findMany({ orderBy: { chainSeq: 'asc' } });
        expect(stored.map((row) => row.chainSeq)).toEqual(
          Array.from({ length: 40 }, (_, index) => index + 1),
        );
        // Interleaved, not one process after the other (else this test would show nothing).
        const writers = stored.map((row) => row.pod!.split('-')[0]);
        expect(
          writers.filter((writer, index) => index > 0 && writer !== writers[index - 1]).length,
        ).toBeGreaterThanOrEqual(2);
        const result = await verify(url);
        expect(result).toMatchObject({ code: 0 });
        expect(result.output).toContain('changes: 40 records intact (1…40)');
      });

      it('prunes the beginning of each chain past retention and no-op counts by age; the kept chain still verifies', async () => {
        const { audit: own1, prisma: read, url } = await own();
        const sink = new PrismaAuditSink(own1);
        const now = Date.now();
        const day = 24 * 3_600_000;
        await sink.write({
          rows: [
            record('prune-old', new Date(now - 31 * day)) as ReconcileRecordRow,
            record('prune-new', new Date(now - 29 * day)) as ReconcileRecordRow,
            // Made before the cut-off but chained after a newer record: kept until the chain before it goes.
            record('prune-late', new Date(now - 32 * day)) as ReconcileRecordRow,
          ],
          changes: [
            change('prune-old', new Date(now - 31 * day)),
            change('prune-new', new Date(now - 29 * day)),
          ],
          entries: [
            entry('prune-old', new Date(now - 31 * day), 'old'),
            entry('prune-new', new Date(now - day), 'new'),
          ],
          noops: [
            { namespace: 'default', name: 'prune-old', count: 1, lastAt: new Date(now - 40 * day) },
            { namespace: 'default', name: 'prune-new', count: 1, lastAt: new Date(now - day) },
          ],
          refusals: [31, 1].map((daysAgo) => ({
            windowStart: new Date(now - daysAgo * day),
            door: 'rest',
            code: 401,
            reason: 'bad-token',
            subject: '',
            address: `prune-${daysAgo}`,
            count: 1,
            firstAt: new Date(now - daysAgo * day),
            lastAt: new Date(now - daysAgo * day),
            message: 'Unauthorized',
          })),
        });
        expect(await sink.prune(new Date(now - 30 * day))).toEqual({
          records: 1,
          changes: 1,
          noops: 1,
          entries: 1,
          refusals: 1,
        });
        expect((await read.refusalCount.findMany()).map((row) => row.address)).toEqual(['prune-1']);
        const left = await read.reconcileRecord.findMany({ orderBy: { chainSeq: 'asc' } });
        expect(left.map((row) => row.name)).toEqual(['prune-new', 'prune-late']);
        const noops = await read.reconcileNoop.findMany();
        expect(noops.map((row) => row.name)).toEqual(['prune-new']);
        const changes = await read.changeRecord.findMany();
        expect(changes.map((row) => row.name)).toEqual(['prune-new']);
        const result = await verify(url);
        expect(result).toMatchObject({ code: 0 });
        expect(result.output).toContain('reconciles: 2 records intact (2…3, 1…1 pruned by retention)');

        // Records stored before the chains existed are pruned by age as before, and reported as not covered.
        await read.changeRecord.create({
          data: withoutCompletesKeys(change('unchained', new Date(now - 31 * day))),
        });
        await read.changeRecord.create({ data: withoutCompletesKeys(change('unchained', new Date(now))) });
        expect(await sink.prune(new Date(now - 30 * day))).toMatchObject({ changes: 1 });
        expect((await verify(url)).output).toContain(
          'changes: 1 records intact (2…2, 1…1 pruned by retention); 1 stored before the chain, not covered',
        );
      });
    });
  });
}

function withoutCompletesKeys({ completesKeys: _keys, ...row }: ChangeRecordRow) {
  return row;
}

describe('migrations against a database that cannot be reached', () => {
  it('fail with the reason and a non-zero exit', async () => {
    const attempt = migrate('postgresql://nobody:wrong@127.0.0.1:1/none');
    await expect(attempt).rejects.toMatchObject({ code: 1 });
    await attempt.catch((error: { stderr: string }) =>
      expect(error.stderr).toMatch(/Can't reach database server|ECONNREFUSED/),
    );
  });
});
