import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ephemeralAuditEnv } from './app-env.js';
import { ConfigError } from './config-error.js';
import type { DatabaseTarget } from './database-target.js';
import { readEnv, type Environment } from './env-readers.js';
import { ephemeralSqliteStorage } from './sqlite-storage.js';

/** This process's mount table, or nothing where there is none to read. */
export const readMountinfo = () => {
  try {
    return readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return '';
  }
};

/**
 * Refuses, in a cluster (a pod: KUBERNETES_SERVICE_HOST is set), a SQLite audit database that dies with the pod:
 * every replica would keep a trail of its own and lose it on restart. ALLOW_EPHEMERAL_AUDIT=true says it is fine.
 */
export function checkDurableAudit(
  database: DatabaseTarget,
  inPod: boolean,
  env: Environment,
  cwd: string,
  mountinfo: () => string,
): void {
  if (database.provider !== 'sqlite' || !inPod) return;
  if (readEnv(ephemeralAuditEnv, env).ALLOW_EPHEMERAL_AUDIT) return;
  const path = database.url.slice('file:'.length);
  if (path === ':memory:' || path === '') return;
  const where = ephemeralSqliteStorage(resolve(cwd, path), mountinfo());
  if (where)
    throw new ConfigError(
      `DATABASE_URL is a SQLite file on ${where}: in a cluster each replica would keep its own audit trail and ` +
        'lose it with the pod. Give DATABASE_URL a PostgreSQL URL (deploy/ does), or set ALLOW_EPHEMERAL_AUDIT=true',
    );
}
