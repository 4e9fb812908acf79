import { createRequire } from 'node:module';
import type { PrismaClient } from '../../generated/prisma-sqlite/index.js';
import type { DatabaseTarget } from '../config/database-target.js';

export type AuditPrismaClient = PrismaClient;

const require = createRequire(import.meta.url);

/**
 * A Prisma client for the target's provider. Each provider has its own generated client (from the twin schemas);
 * both expose the same models, so the SQLite client's type describes either.
 */
export async function createPrismaClient(target: DatabaseTarget): Promise<AuditPrismaClient> {
  if (target.provider === 'postgresql') {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    const generated = require('../../generated/prisma-postgresql/index.js') as {
      PrismaClient: typeof PrismaClient;
    };
    return new generated.PrismaClient({ adapter: new PrismaPg({ connectionString: target.url }) });
  }
  const { PrismaBetterSQLite3 } = await import('@prisma/adapter-better-sqlite3');
  const generated = require('../../generated/prisma-sqlite/index.js') as {
    PrismaClient: typeof PrismaClient;
  };
  const client = new generated.PrismaClient({ adapter: new PrismaBetterSQLite3({ url: target.url }) });
  await useWriteAheadLog(client);
  return client;
}

/**
 * SQLite's write-ahead log with `synchronous = NORMAL`: a commit appends to the log without an fsync of its own
 * (the default rollback journal costs several per transaction, on the event loop's thread). A committed batch
 * survives the process crashing; only a power loss can take the last ones, as it would take the writer's queue.
 * The setting is kept in the file; an in-memory database stays as it is.
 */
async function useWriteAheadLog(client: AuditPrismaClient): Promise<void> {
  await client.$queryRawUnsafe('PRAGMA journal_mode = WAL');
  await client.$executeRawUnsafe('PRAGMA synchronous = NORMAL');
}
