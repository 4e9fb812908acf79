// Driver adapters for the Prisma CLI's JavaScript schema engine (migrate deploy/diff).
import type { DatabaseTarget } from './database-target.js';

const PG_NAME_OID = 19;
const PG_TEXT_OID = 25;

/**
 * Prisma 6.19's schema engine introspects PostgreSQL catalog columns of type `name`, which @prisma/adapter-pg
 * cannot map ("Column type 'name' could not be deserialized", prisma/orm#27403). `name` is text on the wire,
 * so this client reports it as `text`. Only the CLI uses it; the app's client never reads catalog columns.
 */
function textForName<T extends { fields?: { dataTypeID: number }[] }>(answer: T): T {
  for (const field of answer?.fields ?? [])
    if (field.dataTypeID === PG_NAME_OID) field.dataTypeID = PG_TEXT_OID;
  return answer;
}

async function nameAsTextClient() {
  const pg = (await import('pg')).default;
  return class NameAsTextClient extends pg.Client {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    override query(...args: any[]): any {
      const last = args[args.length - 1];
      // pg.Pool calls query with a callback; direct callers get a promise. Patch the fields either way.
      if (typeof last === 'function') {
        // eslint-disable-next-line @typescript-eslint/no-explicit-any
        args[args.length - 1] = (error: unknown, answer: any) =>
          last(error, error ? answer : textForName(answer));
      }
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const result = (super.query as (...a: any[]) => any)(...args);
      return result && typeof result.then === 'function' ? result.then(textForName) : result;
    }
  };
}

export async function migrationAdapter(target: DatabaseTarget) {
  if (target.provider === 'postgresql') {
    const { PrismaPg } = await import('@prisma/adapter-pg');
    return new PrismaPg({ connectionString: target.url, Client: await nameAsTextClient() });
  }
  const { PrismaBetterSQLite3 } = await import('@prisma/adapter-better-sqlite3');
  return new PrismaBetterSQLite3({ url: target.url });
}
