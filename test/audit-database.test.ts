import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTarget } from '../apps/api/src/audit/database-target.js';
import { createPrismaClient, type AuditPrismaClient } from '../apps/api/src/audit/prisma-client.js';
import { ROOT } from './support/paths.js';
import { uniqueName } from './support/wait.js';

const run = promisify(execFile);

async function migrate(databaseUrl: string) {
  const { stdout, stderr } = await run('bash', ['tools/db/migrate.sh'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return stdout + stderr;
}

const postgresUrl = process.env.TEST_POSTGRES_URL;

/** A fresh, empty database per provider; PostgreSQL gets its own throwaway database on the test server. */
const providers: {
  name: string;
  available: boolean;
  create: () => Promise<{ url: string; drop: () => Promise<void> }>;
}[] = [
  {
    name: 'sqlite',
    available: true,
    create: async () => ({
      url: `file:${join(mkdtempSync(join(tmpdir(), 'ngx-db-')), 'audit.db')}`,
      drop: async () => {},
    }),
  },
  {
    name: 'postgresql',
    available: Boolean(postgresUrl),
    create: async () => {
      const database = uniqueName('ngx_test').replaceAll('-', '_');
      const admin = new pg.Client({ connectionString: postgresUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE "${database}"`);
      await admin.end();
      const url = new URL(postgresUrl!);
      url.pathname = `/${database}`;
      return {
        url: url.toString(),
        drop: async () => {
          const cleanup = new pg.Client({ connectionString: postgresUrl });
          await cleanup.connect();
          await cleanup.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
          await cleanup.end();
        },
      };
    },
  },
];

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

for (const provider of providers) {
  describe.skipIf(!provider.available)(`audit database on ${provider.name}`, () => {
    let database: { url: string; drop: () => Promise<void> };
    let prisma: AuditPrismaClient;

    beforeAll(async () => {
      database = await provider.create();
      const output = await migrate(database.url);
      expect(output).toMatch(/All migrations have been successfully applied/);
      prisma = await createPrismaClient(databaseTarget(database.url));
    });
    afterAll(async () => {
      await prisma?.$disconnect();
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
  });
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
