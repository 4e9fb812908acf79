import type { Identity } from '../auth/identity.js';
import {
  PendingSignInRecords,
  SessionRecords,
  SessionStorageUnavailableError,
  type PendingSignInRow,
  type SessionRow,
} from '../auth/session/session-records.js';
import type { AuditDatabase, SqlStatement } from './audit-database.js';
import type { ColumnType } from './audit-tables.js';

/** Longest one session read or write may take before the request is answered 503 instead. */
const STORAGE_TIMEOUT_MS = 5_000;

/** One statement from SQL text with `?` marking its values, each with its column type. */
function sql(text: string, ...values: [unknown, ColumnType][]): SqlStatement {
  const strings = text.split('?');
  if (strings.length !== values.length + 1) throw new Error(`${values.length} values for: ${text}`);
  return { strings, values: values.map(([value]) => value), types: values.map(([, type]) => type) };
}

const at = (ms: number): [Date, ColumnType] => [new Date(ms), 'DateTime'];
const text = (value: string): [string, ColumnType] => [value, 'String'];
const time = (value: unknown) => new Date(value as string | number | Date).getTime();

/**
 * Runs one storage call with a deadline; any failure of the database (unreachable, refused, timed out) becomes
 * SessionStorageUnavailableError, which callers answer 503 without signing anyone out.
 */
async function reach<T>(work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`no answer within ${STORAGE_TIMEOUT_MS / 1000} s`)),
          STORAGE_TIMEOUT_MS,
        );
      }),
    ]);
  } catch (error) {
    throw new SessionStorageUnavailableError(error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
  }
}

const SESSION_COLUMNS = '"identity", "sealedTokens", "expiresAt", "recheckAt"';

function sessionRow([identity, sealedTokens, expiresAt, recheckAt]: unknown[]): SessionRow {
  return {
    identity: JSON.parse(identity as string) as Identity,
    sealedTokens: sealedTokens as string,
    expiresAt: time(expiresAt),
    recheckAt: time(recheckAt),
  };
}

/** Browser sessions in the audit database's BrowserSession table (see prisma/schema.prisma). */
export class SqlSessionRecords extends SessionRecords {
  constructor(private readonly database: AuditDatabase) {
    super();
  }

  async insert(idDigest: string, row: SessionRow & { createdAt: number }): Promise<void> {
    await reach(() =>
      this.database.transaction([
        sql(
          'INSERT INTO "BrowserSession" ("idDigest", "identity", "sealedTokens", "createdAt", "expiresAt", "recheckAt") VALUES (?, ?, ?, ?, ?, ?)',
          text(idDigest),
          text(JSON.stringify(row.identity)),
          text(row.sealedTokens),
          at(row.createdAt),
          at(row.expiresAt),
          at(row.recheckAt),
        ),
      ]),
    );
  }

  async find(idDigest: string, now: number): Promise<SessionRow | undefined> {
    const [row] = await reach(() =>
      this.database.read(
        sql(
          `SELECT ${SESSION_COLUMNS} FROM "BrowserSession" WHERE "idDigest" = ? AND "expiresAt" > ?`,
          text(idDigest),
          at(now),
        ),
      ),
    );
    return row && sessionRow(row);
  }

  async claimRenewal(idDigest: string, now: number, until: number): Promise<boolean> {
    // One UPDATE: SQLite runs it under its write lock; PostgreSQL makes a second one wait for the first's row lock,
    // then evaluates the WHERE again and finds the claim taken.
    const [changed] = await reach(() =>
      this.database.transaction([
        sql(
          'UPDATE "BrowserSession" SET "renewingUntil" = ? WHERE "idDigest" = ? AND "recheckAt" <= ? AND "expiresAt" > ? AND ("renewingUntil" IS NULL OR "renewingUntil" <= ?)',
          at(until),
          text(idDigest),
          at(now),
          at(now),
          at(now),
        ),
      ]),
    );
    return changed === 1;
  }

  async saveRenewal(idDigest: string, renewed: Omit<SessionRow, 'expiresAt'>): Promise<void> {
    await reach(() =>
      this.database.transaction([
        sql(
          'UPDATE "BrowserSession" SET "identity" = ?, "sealedTokens" = ?, "recheckAt" = ?, "renewingUntil" = NULL WHERE "idDigest" = ?',
          text(JSON.stringify(renewed.identity)),
          text(renewed.sealedTokens),
          at(renewed.recheckAt),
          text(idDigest),
        ),
      ]),
    );
  }

  async postponeRenewal(idDigest: string, recheckAt: number): Promise<void> {
    await reach(() =>
      this.database.transaction([
        sql(
          'UPDATE "BrowserSession" SET "recheckAt" = ?, "renewingUntil" = NULL WHERE "idDigest" = ?',
          at(recheckAt),
          text(idDigest),
        ),
      ]),
    );
  }

  async remove(idDigest: string): Promise<SessionRow | undefined> {
    const [row] = await reach(() =>
      this.database.interactive((transaction) =>
        transaction.query(
          sql(
            `DELETE FROM "BrowserSession" WHERE "idDigest" = ? RETURNING ${SESSION_COLUMNS}`,
            text(idDigest),
          ),
        ),
      ),
    );
    return row && sessionRow(row);
  }

  async live(idDigests: readonly string[], now: number): Promise<Set<string>> {
    if (idDigests.length === 0) return new Set();
    const rows = await reach(() =>
      this.database.read(
        sql(
          `SELECT "idDigest" FROM "BrowserSession" WHERE "expiresAt" > ? AND "idDigest" IN (${idDigests.map(() => '?').join(', ')})`,
          at(now),
          ...idDigests.map(text),
        ),
      ),
    );
    return new Set(rows.map(([key]) => key as string));
  }

  async sweep(now: number, keep: number): Promise<number> {
    const changed = await reach(() =>
      this.database.transaction([
        sql('DELETE FROM "BrowserSession" WHERE "expiresAt" <= ?', at(now)),
        sql(
          'DELETE FROM "BrowserSession" WHERE "createdAt" < (SELECT "createdAt" FROM "BrowserSession" ORDER BY "createdAt" DESC LIMIT 1 OFFSET ?)',
          [keep, 'Int'],
        ),
      ]),
    );
    return changed.reduce((sum, count) => sum + count, 0);
  }
}

const PENDING_COLUMNS = '"browserDigest", "sealed", "next", "redirectUri", "expiresAt"';

/** Sign-ins under way in the audit database's PendingSignIn table (see prisma/schema.prisma). */
export class SqlPendingSignInRecords extends PendingSignInRecords {
  constructor(private readonly database: AuditDatabase) {
    super();
  }

  async insert(stateDigest: string, row: PendingSignInRow): Promise<void> {
    await reach(() =>
      this.database.transaction([
        sql(
          `INSERT INTO "PendingSignIn" ("stateDigest", ${PENDING_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`,
          text(stateDigest),
          text(row.browserDigest),
          text(row.sealed),
          text(row.next),
          text(row.redirectUri),
          at(row.expiresAt),
        ),
      ]),
    );
  }

  async take(
    stateDigest: string,
    browserDigest: string | undefined,
    now: number,
  ): Promise<PendingSignInRow | 'unknown' | 'other-browser'> {
    return reach(() =>
      this.database.interactive(async (transaction) => {
        const [taken] = browserDigest
          ? await transaction.query(
              sql(
                `DELETE FROM "PendingSignIn" WHERE "stateDigest" = ? AND "browserDigest" = ? AND "expiresAt" > ? RETURNING ${PENDING_COLUMNS}`,
                text(stateDigest),
                text(browserDigest),
                at(now),
              ),
            )
          : [];
        if (taken) {
          const [browser, sealed, next, redirectUri, expiresAt] = taken;
          return {
            browserDigest: browser as string,
            sealed: sealed as string,
            next: next as string,
            redirectUri: redirectUri as string,
            expiresAt: time(expiresAt),
          };
        }
        const [other] = await transaction.query(
          sql(
            'SELECT 1 FROM "PendingSignIn" WHERE "stateDigest" = ? AND "expiresAt" > ?',
            text(stateDigest),
            at(now),
          ),
        );
        return other ? 'other-browser' : 'unknown';
      }),
    );
  }

  async sweep(now: number, keep: number): Promise<number> {
    const changed = await reach(() =>
      this.database.transaction([
        sql('DELETE FROM "PendingSignIn" WHERE "expiresAt" <= ?', at(now)),
        sql(
          'DELETE FROM "PendingSignIn" WHERE "expiresAt" < (SELECT "expiresAt" FROM "PendingSignIn" ORDER BY "expiresAt" DESC LIMIT 1 OFFSET ?)',
          [keep, 'Int'],
        ),
      ]),
    );
    return changed.reduce((sum, count) => sum + count, 0);
  }
}
