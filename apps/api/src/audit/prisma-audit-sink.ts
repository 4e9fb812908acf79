import {
  CHANGE_RECORD_TABLE,
  RECONCILE_NOOP_TABLE,
  RECONCILE_RECORD_TABLE,
  REFUSAL_COUNT_TABLE,
  TIMELINE_ENTRY_TABLE,
  type AuditTable,
} from './audit-tables.js';
import { AuditRefusedError, type AuditBatch, type AuditSink } from './audit-writer.js';
import type { AuditDatabase, AuditTransaction, SqlStatement } from './audit-database.js';
import { inList, insertStatements, storedRow } from './batch-statements.js';
import {
  AUDIT_STREAMS,
  linkRows,
  STREAM_TABLES,
  type AuditStream,
  type ChainHead,
} from './chain/audit-chain.js';
import { lockChainHeads, saveChainHead, savePrunedHead } from './chain/chain-heads.js';
import type { ChangeRecordRow } from './change-record.js';
import { refusalReason } from './database-refusal.js';
import { addNoopCount, type NoopCount } from './reconcile-record.js';
import type { RefusalCount } from './refusal-tally.js';

/** What one retention pass deleted. */
export interface PruneResult {
  records: number;
  changes: number;
  noops: number;
  entries: number;
  refusals: number;
}

/**
 * Adds a batch's no-op counts to the stored ones: a count new to the table is inserted, a known one grows and
 * takes the batch's last time.
 */
const ADD_TO_NOOP_COUNT =
  'ON CONFLICT ("namespace", "name") DO UPDATE SET "count" = "ReconcileNoop"."count" + excluded."count", ' +
  '"lastAt" = excluded."lastAt"';

/**
 * Adds a batch's refusal counts to the stored ones (another instance, or a retried batch, may have stored some of
 * the same window and key): the count grows, the times widen, the first example message stays.
 */
const ADD_TO_REFUSAL_COUNT =
  'ON CONFLICT ("windowStart", "door", "code", "reason", "subject", "address") DO UPDATE SET ' +
  '"count" = "RefusalCount"."count" + excluded."count", ' +
  '"firstAt" = CASE WHEN excluded."firstAt" < "RefusalCount"."firstAt" THEN excluded."firstAt" ELSE "RefusalCount"."firstAt" END, ' +
  '"lastAt" = CASE WHEN excluded."lastAt" > "RefusalCount"."lastAt" THEN excluded."lastAt" ELSE "RefusalCount"."lastAt" END';

/** The time retention goes by, per stream. */
const TIME_COLUMNS: Readonly<Record<AuditStream, string>> = {
  changes: 'at',
  reconciles: 'startedAt',
  timeline: 'at',
};

/** Most keys bound to one lookup. */
const KEYS_PER_QUERY = 1_000;

/**
 * The audit trail's tables through Prisma's driver adapter (AuditDatabase): batches in one transaction, and
 * pruning by age. A write the database refused for its data rejects with AuditRefusedError (see refusalReason), as
 * does a row whose values do not fit the tables (checked before anything is sent); other failures reject as they
 * came.
 *
 * Every record is linked into its stream's hash chain (chain/audit-chain.ts) in the transaction that stores it,
 * with the chain heads locked (lockChainHeads): a batch reads the heads, leaves out what is stored already (a
 * retried audit batch, by dedupeKey), resolves which record a completing one completes, hashes each record with
 * exactly the values it stores, inserts, and moves the heads. A batch that fails moves no head.
 *
 * Batches are multi-row INSERTs (batch-statements.ts), not `createMany` and one `upsert` per no-op count, and go
 * to the adapter rather than through Prisma's client: its query compiler costs CPU per row and per call (measured
 * on SQLite, a batch of 50 records and 100 no-op counts cost about 140 ms of CPU through the model API, 19 ms as
 * statements through the client, about 1 ms per small batch), and loading it costs about 20 MB of memory that a
 * process which never reads the audit trail does without. Reads stay on the model API (AuditReader).
 */
export class PrismaAuditSink implements AuditSink {
  constructor(private readonly database: AuditDatabase) {}

  async write({ rows, changes, entries = [], noops, refusals = [] }: AuditBatch): Promise<void> {
    if (rows.length + changes.length + entries.length + noops.length + refusals.length === 0) return;
    try {
      // No-op and refusal counts alone (once a second while Nginxes converge) are counters, not records: no chain
      // to extend.
      if (rows.length + changes.length + entries.length === 0) {
        await this.database.transaction(counterStatements(noops, refusals));
        return;
      }
      await this.database.interactive(async (transaction) => {
        const chain = new ChainLinker(await lockChainHeads(transaction));
        const run = async (statements: SqlStatement[]) => {
          for (const statement of statements) await transaction.execute(statement);
        };

        await run(
          insertStatements(
            RECONCILE_RECORD_TABLE,
            chain.link('reconciles', stored(RECONCILE_RECORD_TABLE, rows)),
          ),
        );

        const fresh = await notStoredYet(transaction, CHANGE_RECORD_TABLE, changes);
        const [first, completing] = partition(fresh, (change) => (change.completesKeys?.length ?? 0) === 0);
        await run(
          insertStatements(
            CHANGE_RECORD_TABLE,
            chain.link('changes', stored(CHANGE_RECORD_TABLE, first.map(withoutKeys))),
          ),
        );
        // After the batch's first records, so a record can complete one written in the same transaction.
        await insertCompleting(transaction, chain, completing);

        const freshEntries = await notStoredYet(transaction, TIMELINE_ENTRY_TABLE, entries);
        await run(
          insertStatements(
            TIMELINE_ENTRY_TABLE,
            chain.link('timeline', stored(TIMELINE_ENTRY_TABLE, freshEntries)),
          ),
        );

        await run(counterStatements(noops, refusals));
        await run(chain.movedHeads());
      });
    } catch (error) {
      const reason = refusalReason(error);
      throw reason === undefined ? error : new AuditRefusedError(reason, { cause: error });
    }
  }

  /**
   * Deletes what is past retention (`before`): no-op counts last bumped before it, unchained records (stored
   * before the chains existed) made before it, and of each chain the longest beginning whose records were all made
   * before it. A chain is only ever cut at its beginning, so a record that arrived late with an old time waits for
   * the ones before it; the head keeps the last pruned record's place and hash for audit:verify.
   */
  async prune(before: Date): Promise<PruneResult> {
    return this.database.interactive(async (transaction) => {
      const heads = await lockChainHeads(transaction);
      const deleted: Record<AuditStream, number> = { changes: 0, reconciles: 0, timeline: 0 };
      for (const stream of AUDIT_STREAMS) {
        const { name } = STREAM_TABLES[stream];
        const at = TIME_COLUMNS[stream];
        const head = heads.get(stream)!;
        const [[firstKept] = []] = await transaction.query({
          strings: [`SELECT MIN("chainSeq") FROM "${name}" WHERE "chainSeq" IS NOT NULL AND "${at}" >= `, ''],
          values: [before],
          types: ['DateTime'],
        });
        const cut = (firstKept === null || firstKept === undefined ? head.seq + 1 : Number(firstKept)) - 1;
        if (cut > head.prunedSeq) {
          const [[hash] = []] = await transaction.query(whereSeq(`SELECT "hash" FROM "${name}"`, '=', cut));
          deleted[stream] += await transaction.execute(whereSeq(`DELETE FROM "${name}"`, '<=', cut));
          await transaction.execute(
            savePrunedHead(stream, { seq: cut, hash: typeof hash === 'string' ? hash : '' }),
          );
        }
        deleted[stream] += await transaction.execute(
          deleteBefore(name, at, before, ' AND "chainSeq" IS NULL'),
        );
      }
      const noops = await transaction.execute(deleteBefore(RECONCILE_NOOP_TABLE.name, 'lastAt', before));
      const refusals = await transaction.execute(deleteBefore(REFUSAL_COUNT_TABLE.name, 'lastAt', before));
      return {
        records: deleted.reconciles,
        changes: deleted.changes,
        noops,
        entries: deleted.timeline,
        refusals,
      };
    });
  }
}

/** Extends each stream's chain from the locked heads, and says which heads moved. */
class ChainLinker {
  private readonly moved = new Set<AuditStream>();

  constructor(private readonly heads: Map<AuditStream, ChainHead>) {}

  link(stream: AuditStream, rows: readonly Record<string, unknown>[]): Record<string, unknown>[] {
    if (rows.length === 0) return [];
    const linked = linkRows(STREAM_TABLES[stream], this.heads.get(stream)!, rows);
    this.heads.set(stream, linked.head);
    this.moved.add(stream);
    return linked.rows;
  }

  movedHeads(): SqlStatement[] {
    return [...this.moved].map((stream) => saveChainHead(stream, this.heads.get(stream)!));
  }
}

function stored(table: AuditTable, rows: readonly object[]): Record<string, unknown>[] {
  return rows.map((row) => storedRow(table, row));
}

/**
 * The rows whose dedupeKey is neither stored already nor repeated earlier in the batch (a retried audit batch
 * stores nothing twice); rows without a key all stay.
 */
async function notStoredYet<Row extends { dedupeKey?: string | null }>(
  transaction: AuditTransaction,
  table: AuditTable,
  rows: readonly Row[],
): Promise<Row[]> {
  const keys = [...new Set(rows.flatMap((row) => (row.dedupeKey ? [row.dedupeKey] : [])))];
  const seen = new Set<string>();
  for (let start = 0; start < keys.length; start += KEYS_PER_QUERY) {
    const chunk = keys.slice(start, start + KEYS_PER_QUERY);
    const found = await transaction.query(
      inList(`SELECT "dedupeKey" FROM "${table.name}" WHERE "dedupeKey" IN (`, chunk, ')'),
    );
    for (const [key] of found) seen.add(String(key));
  }
  return rows.filter((row) => {
    if (!row.dedupeKey) return true;
    if (seen.has(row.dedupeKey)) return false;
    seen.add(row.dedupeKey);
    return true;
  });
}

/**
 * Inserts records that complete earlier ones, in order: each `completes` the oldest stored record with one of its
 * `completesKeys` that completes nothing itself, or nothing (then it is a change's first record, and a later
 * record of the batch may complete it).
 */
async function insertCompleting(
  transaction: AuditTransaction,
  chain: ChainLinker,
  completing: readonly ChangeRecordRow[],
): Promise<void> {
  if (completing.length === 0) return;
  const keys = [...new Set(completing.flatMap((change) => change.completesKeys ?? []))];
  const firstByKey = new Map<string, number>();
  for (let start = 0; start < keys.length; start += KEYS_PER_QUERY) {
    const found = await transaction.query(
      inList(
        `SELECT "joinKey", MIN("id") FROM "${CHANGE_RECORD_TABLE.name}" WHERE "completes" IS NULL AND "joinKey" IN (`,
        keys.slice(start, start + KEYS_PER_QUERY),
        ') GROUP BY "joinKey"',
      ),
    );
    for (const [key, id] of found) firstByKey.set(String(key), Number(id));
  }
  const completes: Record<string, unknown>[] = [];
  for (const change of completing) {
    const targets = (change.completesKeys ?? []).flatMap((key) => firstByKey.get(key) ?? []);
    const target = targets.length > 0 ? Math.min(...targets) : null;
    const [row] = chain.link(
      'changes',
      stored(CHANGE_RECORD_TABLE, [{ ...withoutKeys(change), completes: target }]),
    );
    if (target !== null) {
      completes.push(row!);
      continue;
    }
    // A first record after all: inserted now, so a later record of this batch can find it by its id.
    const [statement] = insertStatements(CHANGE_RECORD_TABLE, [row!]);
    const [[id] = []] = await transaction.query({
      ...statement!,
      strings: withReturningId(statement!.strings),
    });
    const joinKey = row!.joinKey;
    if (typeof joinKey === 'string' && !firstByKey.has(joinKey)) firstByKey.set(joinKey, Number(id));
  }
  for (const statement of insertStatements(CHANGE_RECORD_TABLE, completes))
    await transaction.execute(statement);
}

function whereSeq(head: string, operator: '=' | '<=', seq: number): SqlStatement {
  return { strings: [`${head} WHERE "chainSeq" ${operator} `, ''], values: [seq], types: ['Int'] };
}

function withReturningId(strings: readonly string[]): string[] {
  const parts = [...strings];
  parts[parts.length - 1] += ' RETURNING "id"';
  return parts;
}

function withoutKeys(change: ChangeRecordRow): Omit<ChangeRecordRow, 'completesKeys'> {
  const { completesKeys: _keys, ...row } = change;
  return row;
}

function partition<Item>(items: readonly Item[], test: (item: Item) => boolean): [Item[], Item[]] {
  const passed: Item[] = [];
  const failed: Item[] = [];
  for (const item of items) (test(item) ? passed : failed).push(item);
  return [passed, failed];
}

function deleteBefore(table: string, column: string, before: Date, andWhere = ''): SqlStatement {
  return {
    strings: [`DELETE FROM "${table}" WHERE "${column}" < `, andWhere],
    values: [before],
    types: ['DateTime'],
  };
}

/**
 * The upserts of the counters. One statement may not touch a key twice (PostgreSQL refuses it), so counts of one
 * Nginx are added up first; refusal counts come from one RefusalTally, one per key already.
 */
function counterStatements(noops: readonly NoopCount[], refusals: readonly RefusalCount[]): SqlStatement[] {
  return [
    ...insertStatements(RECONCILE_NOOP_TABLE, foldNoops(noops), ADD_TO_NOOP_COUNT),
    ...insertStatements(REFUSAL_COUNT_TABLE, refusals, ADD_TO_REFUSAL_COUNT),
  ];
}

/** One count per Nginx: counts of the same Nginx added up, with the latest time. */
function foldNoops(noops: readonly NoopCount[]): NoopCount[] {
  const folded = new Map<string, NoopCount>();
  for (const noop of noops) addNoopCount(folded, noop);
  return [...folded.values()];
}
