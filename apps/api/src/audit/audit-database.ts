import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { PrismaBetterSQLite3 } from '@prisma/adapter-better-sqlite3';
import type { DatabaseTarget } from '../config/database-target.js';
import type { ColumnType } from './audit-tables.js';
import { prismaClientOver, type AuditPrismaClient } from './prisma-client.js';

/** A connected Prisma driver adapter: SQLite's and PostgreSQL's have the same interface. */
type DriverAdapter = Awaited<ReturnType<PrismaBetterSQLite3['connect']>>;
type DriverQuery = Parameters<DriverAdapter['executeRaw']>[0];
type DriverTransaction = Awaited<ReturnType<DriverAdapter['startTransaction']>>;

/**
 * One SQL statement as a tagged template's parts: `strings` around `values`, one more string than values, and
 * each value's column type. The database numbers the placeholders for its provider (`?` or `$1`).
 */
export interface SqlStatement {
  strings: readonly string[];
  values: unknown[];
  types: ColumnType[];
}

/** One open transaction of AuditDatabase.interactive. */
export interface AuditTransaction {
  readonly provider: DatabaseTarget['provider'];
  /** Runs a statement; resolves to the rows it changed. */
  execute(statement: SqlStatement): Promise<number>;
  /** Runs a query (or a statement with RETURNING); resolves to its rows, values in the select list's order. */
  query(statement: SqlStatement): Promise<unknown[][]>;
}

/** How Prisma's driver adapters are told to bind each column type (DateTime as the adapter stores it). */
const ARG_TYPES: Record<ColumnType, DriverQuery['argTypes'][number]> = {
  Int: { scalarType: 'int', arity: 'scalar' },
  String: { scalarType: 'string', arity: 'scalar' },
  DateTime: { scalarType: 'datetime', arity: 'scalar' },
};

const isInMemory = (target: DatabaseTarget) =>
  target.provider === 'sqlite' && ['file::memory:', 'file:'].includes(target.url);

const bare = (sql: string): DriverQuery => ({ sql, args: [], argTypes: [] });

/**
 * The audit database through Prisma's driver adapter, connected at start: the audit trail's writes, pruning and
 * the readiness ping go to the adapter as SQL. Prisma's client, which the reads need (its generated module and
 * WebAssembly query compiler take about 20 MB resident), is made on the first read and shares the adapter's
 * connection (SQLite) or pool (PostgreSQL), so a process that never reads the audit trail never loads it.
 * Guarantees:
 * - `transaction` runs its statements in one transaction: all of them, or none (rolled back on the first failure,
 *   which it rethrows as the adapter gave it: a `DriverAdapterError` with the driver's code); `interactive` the
 *   same for work that reads in between.
 * - Values are bound as Prisma's own client binds them for the same column types, so the client reads back
 *   exactly what was written (a DateTime in the adapter's format, an Int as a number).
 * - `close` ends the client if one was made, then the connection; nothing is used after it.
 */
export class AuditDatabase {
  private prisma?: Promise<AuditPrismaClient>;

  private constructor(
    private readonly target: DatabaseTarget,
    private readonly adapter: DriverAdapter,
  ) {}

  /** Opens the adapter (SQLite: the file, in WAL mode; PostgreSQL: a pool that connects on first use). */
  static async connect(target: DatabaseTarget): Promise<AuditDatabase> {
    if (target.provider === 'postgresql') {
      const { PrismaPg } = await import('@prisma/adapter-pg');
      return new AuditDatabase(target, await new PrismaPg({ connectionString: target.url }).connect());
    }
    const { PrismaBetterSQLite3 } = await import('@prisma/adapter-better-sqlite3');
    const database = new AuditDatabase(target, await new PrismaBetterSQLite3({ url: target.url }).connect());
    await database.useWriteAheadLog();
    if (isInMemory(target)) await database.migrate();
    return database;
  }

  /**
   * Creates the tables of a database that starts empty every time (`file::memory:`, which no migration command
   * can reach): the migrations' SQL, in order, from the migrations folder under the working directory.
   */
  private async migrate(): Promise<void> {
    const folder = resolve(this.target.migrations);
    const names = readdirSync(folder, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .sort();
    for (const name of names)
      await this.adapter.executeScript(readFileSync(join(folder, name, 'migration.sql'), 'utf8'));
  }

  /** Runs `statements` in one transaction; resolves to the rows each changed. */
  transaction(statements: readonly SqlStatement[]): Promise<number[]> {
    return this.interactive(async (transaction) => {
      const changed: number[] = [];
      for (const statement of statements) changed.push(await transaction.execute(statement));
      return changed;
    });
  }

  /**
   * Runs `work` in one transaction, committed when it resolves and rolled back when it throws (rethrown): for
   * writes that read what they build on (the chain heads) in the same transaction.
   */
  async interactive<Result>(work: (transaction: AuditTransaction) => Promise<Result>): Promise<Result> {
    const transaction = await this.adapter.startTransaction();
    try {
      const result = await work({
        provider: this.target.provider,
        execute: (statement) => transaction.executeRaw(this.query(statement)),
        query: async (statement) => (await transaction.queryRaw(this.query(statement))).rows,
      });
      if (!transaction.options.usePhantomQuery) await transaction.executeRaw(bare('COMMIT'));
      await transaction.commit();
      return result;
    } catch (error) {
      await rollBack(transaction);
      throw error;
    }
  }

  /** Runs one query outside any transaction; resolves to its rows, values in the select list's order. */
  async read(statement: SqlStatement): Promise<unknown[][]> {
    return (await this.adapter.queryRaw(this.query(statement))).rows;
  }

  /** Round-trips a trivial query; throws when the database cannot be reached. */
  async ping(): Promise<void> {
    await this.adapter.queryRaw(bare('SELECT 1'));
  }

  /** Prisma's client over this connection, made on the first call (tried again on the next if that failed). */
  client(): Promise<AuditPrismaClient> {
    this.prisma ??= Promise.resolve()
      .then(() => prismaClientOver(this.target, this.sharedAdapter()))
      .catch((error: unknown) => {
        this.prisma = undefined;
        throw error;
      });
    return this.prisma;
  }

  async close(): Promise<void> {
    const client = await this.prisma?.catch(() => undefined);
    await client?.$disconnect();
    await this.adapter.dispose();
  }

  private query({ strings, values, types }: SqlStatement): DriverQuery {
    const placeholder = this.target.provider === 'postgresql' ? (n: number) => `$${n}` : () => '?';
    let sql = strings[0] ?? '';
    for (let index = 1; index < strings.length; index++) sql += placeholder(index) + strings[index];
    return { sql, args: values, argTypes: types.map((type) => ARG_TYPES[type]) };
  }

  /** The adapter as the client's factory hands it out: the client's `$disconnect` leaves it open for `close`. */
  private sharedAdapter(): DriverAdapter {
    const adapter = this.adapter;
    return {
      provider: adapter.provider,
      adapterName: adapter.adapterName,
      queryRaw: (query) => adapter.queryRaw(query),
      executeRaw: (query) => adapter.executeRaw(query),
      executeScript: (script) => adapter.executeScript(script),
      startTransaction: (isolationLevel) => adapter.startTransaction(isolationLevel),
      ...(adapter.getConnectionInfo ? { getConnectionInfo: () => adapter.getConnectionInfo!() } : {}),
      dispose: async () => {},
    };
  }

  /**
   * SQLite's write-ahead log with `synchronous = NORMAL`: a commit appends to the log without an fsync of its
   * own (the default rollback journal costs several per transaction, on the event loop's thread). A committed
   * batch survives the process crashing; only a power loss can take the last ones, as it would take the writer's
   * queue. The setting is kept in the file; an in-memory database stays as it is.
   */
  private async useWriteAheadLog(): Promise<void> {
    await this.adapter.queryRaw(bare('PRAGMA journal_mode = WAL'));
    await this.adapter.executeRaw(bare('PRAGMA synchronous = NORMAL'));
  }
}

/** Ends a failed transaction; a rollback that fails too (the connection is gone) is left to the first error. */
async function rollBack(transaction: DriverTransaction): Promise<void> {
  try {
    if (!transaction.options.usePhantomQuery) await transaction.executeRaw(bare('ROLLBACK'));
  } catch {
    // the original failure is what the caller needs to see
  }
  await transaction.rollback().catch(() => undefined);
}
