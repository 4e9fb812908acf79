import {
  CHANGE_RECORD_TABLE,
  RECONCILE_NOOP_TABLE,
  RECONCILE_RECORD_TABLE,
  TIMELINE_ENTRY_TABLE,
} from './audit-tables.js';
import { AuditRefusedError, type AuditBatch, type AuditSink } from './audit-writer.js';
import type { AuditDatabase, SqlStatement } from './audit-database.js';
import { insertStatements, insertWithLookup } from './batch-statements.js';
import type { ChangeRecordRow } from './change-record.js';
import { refusalReason } from './database-refusal.js';
import { addNoopCount, type NoopCount } from './reconcile-record.js';

/** What one retention pass deleted. */
export interface PruneResult {
  records: number;
  changes: number;
  noops: number;
  entries: number;
}

/**
 * Adds a batch's no-op counts to the stored ones: a count new to the table is inserted, a known one grows and
 * takes the batch's last time.
 */
const ADD_TO_NOOP_COUNT =
  'ON CONFLICT ("namespace", "name") DO UPDATE SET "count" = "ReconcileNoop"."count" + excluded."count", ' +
  '"lastAt" = excluded."lastAt"';

/**
 * The audit trail's tables through Prisma's driver adapter (AuditDatabase): batches in one transaction, and
 * pruning by age. A write the database refused for its data rejects with AuditRefusedError (see refusalReason), as
 * does a row whose values do not fit the tables (checked before anything is sent); other failures reject as they
 * came.
 *
 * Batches are multi-row INSERTs (batch-statements.ts), not `createMany` and one `upsert` per no-op count, and go
 * to the adapter rather than through Prisma's client: its query compiler costs CPU per row and per call (measured
 * on SQLite, a batch of 50 records and 100 no-op counts cost about 140 ms of CPU through the model API, 19 ms as
 * statements through the client, about 1 ms per small batch), and loading it costs about 20 MB of memory that a
 * process which never reads the audit trail does without. Reads stay on the model API (AuditReader).
 */
export class PrismaAuditSink implements AuditSink {
  constructor(private readonly database: AuditDatabase) {}

  async write({ rows, changes, entries = [], noops }: AuditBatch): Promise<void> {
    const [first, completing] = partition(changes, (change) => (change.completesKeys?.length ?? 0) === 0);
    const statements = [
      ...insertStatements(RECONCILE_RECORD_TABLE, rows),
      ...insertStatements(CHANGE_RECORD_TABLE, first.map(withoutKeys), STORE_ONCE),
      // After the batch's first records, so a record can complete one written in the same transaction.
      ...completing.map(completingStatement),
      ...insertStatements(TIMELINE_ENTRY_TABLE, entries, STORE_ONCE),
      // One statement may not touch a key twice (PostgreSQL refuses it), so counts of one Nginx are added first.
      ...insertStatements(RECONCILE_NOOP_TABLE, foldNoops(noops), ADD_TO_NOOP_COUNT),
    ];
    if (statements.length === 0) return;
    try {
      await this.database.transaction(statements);
    } catch (error) {
      const reason = refusalReason(error);
      throw reason === undefined ? error : new AuditRefusedError(reason, { cause: error });
    }
  }

  /**
   * Deletes reconcile records that started, change records made, and no-op counts last bumped, before `before`.
   */
  async prune(before: Date): Promise<PruneResult> {
    const [records = 0, changes = 0, noops = 0, entries = 0] = await this.database.transaction([
      deleteBefore(RECONCILE_RECORD_TABLE.name, 'startedAt', before),
      deleteBefore(CHANGE_RECORD_TABLE.name, 'at', before),
      deleteBefore(RECONCILE_NOOP_TABLE.name, 'lastAt', before),
      deleteBefore(TIMELINE_ENTRY_TABLE.name, 'at', before),
    ]);
    return { records, changes, noops, entries };
  }
}

/** A change record whose dedupeKey is stored already is not stored again (a retried audit batch). */
const STORE_ONCE = 'ON CONFLICT ("dedupeKey") DO NOTHING';

/**
 * Inserts a record that completes an earlier one: its `completes` is the oldest stored record with one of its
 * `completesKeys` that completes nothing itself, or NULL (then it is a change's first record).
 */
function completingStatement(change: ChangeRecordRow): SqlStatement {
  const keys = change.completesKeys ?? [];
  const placeholders = keys.map((_, index) => (index === 0 ? '' : ', '));
  return insertWithLookup(
    CHANGE_RECORD_TABLE,
    withoutKeys(change),
    'completes',
    {
      strings: [
        `SELECT "id" FROM "${CHANGE_RECORD_TABLE.name}" WHERE "completes" IS NULL AND "joinKey" IN (`,
        ...placeholders.slice(1),
        ') ORDER BY "id" LIMIT 1',
      ],
      values: keys,
    },
    STORE_ONCE,
  );
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

function deleteBefore(table: string, column: string, before: Date): SqlStatement {
  return {
    strings: [`DELETE FROM "${table}" WHERE "${column}" < `, ''],
    values: [before],
    types: ['DateTime'],
  };
}

/** One count per Nginx: counts of the same Nginx added up, with the latest time. */
function foldNoops(noops: readonly NoopCount[]): NoopCount[] {
  const folded = new Map<string, NoopCount>();
  for (const noop of noops) addNoopCount(folded, noop);
  return [...folded.values()];
}
