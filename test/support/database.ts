import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { ROOT } from './paths.js';
import { sleep, uniqueName } from './wait.js';

/** The PostgreSQL server tools/test.sh started for the tests, if any. */
export const POSTGRES_URL = process.env.TEST_POSTGRES_URL;

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

/** Applies the committed migrations with the Prisma CLI (tools/db/migrate.sh); resolves with what it printed. */
export async function migrate(databaseUrl: string): Promise<string> {
  const { stdout, stderr } = await promisify(execFile)('bash', ['tools/db/migrate.sh'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  return stdout + stderr;
}

/** A fresh, empty SQLite file in a temporary folder. */
export async function sqliteDatabase(): Promise<TestDatabase> {
  return { url: `file:${join(mkdtempSync(join(tmpdir(), 'ngx-db-')), 'audit.db')}`, drop: async () => {} };
}

/** Runs one statement as the test server's role (it owns the databases it creates). */
export async function postgresAdmin(sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** A throwaway database on the test PostgreSQL server; `drop` removes it even while connections are open. */
export async function postgresDatabase(): Promise<TestDatabase & { name: string }> {
  if (!POSTGRES_URL) throw new Error('TEST_POSTGRES_URL is not set');
  const name = uniqueName('ngx_test').replaceAll('-', '_');
  await postgresAdmin(`CREATE DATABASE "${name}"`);
  const url = new URL(POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => dropDatabase(name),
  };
}

/**
 * Drops database `name`, closing its connections. FORCE may not end a backend of another role: an autovacuum worker
 * that happens to be in the new database refuses it (42501) for the second or so it runs, so that is tried again.
 */
async function dropDatabase(name: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await postgresAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } catch (error) {
      if ((error as { code?: string }).code !== '42501' || attempt === 20) throw error;
      await sleep(500);
    }
  }
}
