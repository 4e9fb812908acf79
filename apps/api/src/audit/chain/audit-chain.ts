import { createHash } from 'node:crypto';
import {
  CHANGE_RECORD_TABLE,
  RECONCILE_RECORD_TABLE,
  TIMELINE_ENTRY_TABLE,
  type AuditColumn,
  type AuditTable,
} from '../audit-tables.js';

/**
 * The audit trail's hash chains: one per stream of records that are only ever added. Each record carries its
 * place (`chainSeq`, 1, 2, 3, … with no gap) and `hash` = SHA-256 of the previous record's hash and this record's
 * content; the first record follows the stream's genesis hash. Changing, removing or reordering a stored record
 * breaks the link after it; removing records at the end leaves the chain short of its head (AuditChainHead).
 * No-op counts are counters updated in place, not records, and are not chained.
 */
export type AuditStream = 'changes' | 'reconciles' | 'timeline';

export const AUDIT_STREAMS: readonly AuditStream[] = ['changes', 'reconciles', 'timeline'];

export const STREAM_TABLES: Readonly<Record<AuditStream, AuditTable>> = {
  changes: CHANGE_RECORD_TABLE,
  reconciles: RECONCILE_RECORD_TABLE,
  timeline: TIMELINE_ENTRY_TABLE,
};

/** Where a stream's chain ends: the last record's place (0 before the first) and hash. */
export interface ChainHead {
  seq: number;
  hash: string;
}

/** The hash the first record of `stream` follows. */
export function genesisHash(stream: AuditStream): string {
  return sha256(`nginx-audit-chain/v1 ${stream}`);
}

/**
 * The hash of a record of `table` with the stored `values` following `previous`: over every column but `hash`
 * (`chainSeq` included) in the table's order, then an object of the columns added since the chains began
 * (AuditColumn.chainedWhenSet) that hold a value, when any does. A record stored before those columns existed
 * (all null) hashes as it did then; setting or clearing one of them later changes the hash. Values are taken as
 * either side has them: the writer's Dates and numbers, or Prisma's client reading them back, so the same record
 * hashes the same on both.
 */
export function recordHash(table: AuditTable, previous: string, values: Record<string, unknown>): string {
  const content: unknown[] = table.columns
    .filter((column) => column.name !== 'hash' && !column.chainedWhenSet)
    .map((column) => canonical(column, values[column.name]));
  const added = table.columns.flatMap((column) => {
    const value = column.chainedWhenSet ? canonical(column, values[column.name]) : null;
    return value === null ? [] : [[column.name, value] as const];
  });
  if (added.length > 0) content.push(Object.fromEntries(added));
  return sha256(`${previous}\n${JSON.stringify(content)}`);
}

/**
 * Links stored rows (as storedRow gives them) onto `head`, in order: each gets the next `chainSeq` and its hash.
 * Returns the linked rows and the new head; the inputs are not changed.
 */
export function linkRows(
  table: AuditTable,
  head: ChainHead,
  rows: readonly Record<string, unknown>[],
): { rows: Record<string, unknown>[]; head: ChainHead } {
  let { seq, hash } = head;
  const linked = rows.map((row) => {
    seq += 1;
    const withSeq = { ...row, chainSeq: seq };
    hash = recordHash(table, hash, withSeq);
    return { ...withSeq, hash };
  });
  return { rows: linked, head: { seq, hash } };
}

function canonical(column: AuditColumn, value: unknown): string | number | null {
  if (value === null || value === undefined) return null;
  if (column.type === 'DateTime')
    return (value instanceof Date ? value : new Date(String(value))).toISOString();
  if (column.type === 'Int') return Number(value);
  return String(value);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
