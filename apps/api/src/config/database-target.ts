import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/** Where the audit database lives and which Prisma schema, migrations and client serve it. */
export interface DatabaseTarget {
  provider: 'sqlite' | 'postgresql';
  /** Connection URL for the driver adapter (`file:` path for SQLite). */
  url: string;
  /** Prisma schema file and migrations folder, relative to the repository root. */
  schema: string;
  migrations: string;
}

export const DEFAULT_DATABASE_URL = 'file:./.data/audit.db';

/**
 * Reads DATABASE_URL: unset or `file:` means the embedded SQLite database, `postgres://` or `postgresql://`
 * means PostgreSQL. Anything else is a configuration error, reported before any connection is tried.
 */
export function databaseTarget(databaseUrl: string | undefined): DatabaseTarget {
  const url = databaseUrl?.trim() || DEFAULT_DATABASE_URL;
  if (url.startsWith('file:')) {
    return { provider: 'sqlite', url, schema: 'prisma/schema.prisma', migrations: 'prisma/migrations' };
  }
  if (/^postgres(ql)?:\/\//.test(url)) {
    return {
      provider: 'postgresql',
      url,
      schema: 'prisma/postgresql/schema.prisma',
      migrations: 'prisma/postgresql/migrations',
    };
  }
  const scheme = url.split(':')[0] ?? url;
  throw new Error(`DATABASE_URL must start with file:, postgres:// or postgresql:// (got "${scheme}:")`);
}

/** Creates the folder of a SQLite database file, which better-sqlite3 does not do itself. */
export function ensureSqliteDirectory(target: DatabaseTarget): void {
  if (target.provider !== 'sqlite') return;
  const path = target.url.slice('file:'.length);
  if (path && path !== ':memory:') mkdirSync(dirname(resolve(path)), { recursive: true });
}
