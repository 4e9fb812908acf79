import type { SqlStatement } from './audit-database.js';
import { AuditRefusedError } from './audit-writer.js';
import type { AuditColumn, AuditTable } from './audit-tables.js';

/**
 * Most values bound to one statement: below SQLite's limit (32,766 since 3.32) and PostgreSQL's (65,535), with
 * room to spare. A batch larger than this is written as several statements of the same transaction.
 */
const MAX_VALUES_PER_STATEMENT = 8_000;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/**
 * Multi-row INSERTs of `rows` into `table`, checked first as Prisma's client would check them: each column's value
 * has the column's type (an Int is a 32-bit integer, a DateTime a valid Date, a String a string), a missing
 * optional value is NULL, a missing value with a default takes it, and a row has no field the table lacks.
 * A row that fails the check throws AuditRefusedError before anything is sent. `onConflict` is appended to each
 * statement as it is (the caller's own SQL, never row data).
 */
export function insertStatements(
  table: AuditTable,
  rows: readonly object[],
  onConflict = '',
): SqlStatement[] {
  if (rows.length === 0) return [];
  const columns = table.columns;
  const head = `INSERT INTO "${table.name}" (${columns.map((column) => `"${column.name}"`).join(', ')}) VALUES (`;
  const tail = onConflict ? `) ${onConflict}` : ')';
  const rowsPerStatement = Math.max(1, Math.floor(MAX_VALUES_PER_STATEMENT / columns.length));
  const statements: SqlStatement[] = [];
  for (let start = 0; start < rows.length; start += rowsPerStatement) {
    const chunk = rows.slice(start, start + rowsPerStatement);
    const strings: string[] = [head];
    const values: unknown[] = [];
    const types: SqlStatement['types'] = [];
    chunk.forEach((row, index) => {
      if (index > 0) strings[strings.length - 1] += '), (';
      checkFields(table, row);
      columns.forEach((column, position) => {
        if (position > 0) strings.push(', ');
        values.push(checkedValue(table, column, (row as Record<string, unknown>)[column.name]));
        types.push(column.type);
      });
      strings.push('');
    });
    strings[strings.length - 1] += tail;
    statements.push({ strings, values, types });
  }
  return statements;
}

/**
 * The row as `table` stores it: every column's checked value (a missing value with a default takes it, a missing
 * optional one is null). Throws AuditRefusedError as insertStatements does. What a chained record's hash covers.
 */
export function storedRow(table: AuditTable, row: object): Record<string, unknown> {
  checkFields(table, row);
  const stored: Record<string, unknown> = {};
  for (const column of table.columns)
    stored[column.name] = checkedValue(table, column, (row as Record<string, unknown>)[column.name]);
  return stored;
}

function checkFields(table: AuditTable, row: object): void {
  for (const field of Object.keys(row)) {
    if (!table.columns.some((column) => column.name === field))
      throw refused(`${table.name} has no column ${field}`);
  }
}

function checkedValue(table: AuditTable, column: AuditColumn, value: unknown): unknown {
  if (value === undefined && column.default !== undefined) return column.default;
  if (value === null || value === undefined) {
    if (column.optional) return null;
    throw refused(`${table.name}.${column.name} is required`);
  }
  const fits =
    column.type === 'Int'
      ? Number.isInteger(value) && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX
      : column.type === 'DateTime'
        ? value instanceof Date && !Number.isNaN(value.getTime())
        : typeof value === 'string';
  if (!fits) throw refused(`${table.name}.${column.name} is not a valid ${column.type}`);
  return value;
}

function refused(why: string): AuditRefusedError {
  return new AuditRefusedError(`invalid value ${why}`);
}

/** `head` followed by one String placeholder per key, comma-separated, then `tail`: `… IN (?, ?, ?)`. */
export function inList(head: string, keys: readonly string[], tail: string): SqlStatement {
  return {
    strings: [head, ...keys.map((_, index) => (index < keys.length - 1 ? ', ' : tail))],
    values: [...keys],
    types: keys.map(() => 'String' as const),
  };
}

/** One statement of SQL text (the caller's own, never data) and statements, in order. */
export function joinedStatement(...parts: readonly (string | SqlStatement)[]): SqlStatement {
  const joined = { strings: [''], values: [] as unknown[], types: [] as SqlStatement['types'][number][] };
  for (const part of parts) {
    const { strings, values, types } =
      typeof part === 'string' ? { strings: [part], values: [], types: [] } : part;
    joined.strings[joined.strings.length - 1] += strings[0] ?? '';
    joined.strings.push(...strings.slice(1));
    joined.values.push(...values);
    joined.types.push(...types);
  }
  return joined;
}
