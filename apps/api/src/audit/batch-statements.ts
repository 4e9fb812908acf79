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
 * One INSERT of `row` into `table` whose `column` is not a value of the row but the first id a `lookup` query of
 * the same table finds (NULL when it finds none), resolved by the database when the statement runs: so a row can
 * name one written earlier in the same transaction. Checked as insertStatements checks rows. `lookup` is the
 * caller's own SQL around `lookupValues` (bound, never inlined).
 */
export function insertWithLookup(
  table: AuditTable,
  row: object,
  column: string,
  lookup: { strings: readonly string[]; values: readonly string[] },
  onConflict = '',
): SqlStatement {
  checkFields(table, row);
  const columns = table.columns;
  const strings: string[] = [
    `INSERT INTO "${table.name}" (${columns.map((each) => `"${each.name}"`).join(', ')}) SELECT `,
  ];
  const values: unknown[] = [];
  const types: SqlStatement['types'] = [];
  columns.forEach((each, position) => {
    const separator = position > 0 ? ', ' : '';
    if (each.name === column) {
      strings[strings.length - 1] += `${separator}(${lookup.strings[0] ?? ''}`;
      lookup.values.forEach((value, index) => {
        values.push(value);
        types.push('String');
        strings.push(lookup.strings[index + 1] ?? '');
      });
      strings[strings.length - 1] += ')';
      return;
    }
    strings[strings.length - 1] += separator;
    values.push(checkedValue(table, each, (row as Record<string, unknown>)[each.name]));
    types.push(each.type);
    strings.push('');
  });
  // SQLite reads `ON CONFLICT` after a bare SELECT as a join's; a WHERE clause ends the SELECT for both databases.
  strings[strings.length - 1] += onConflict ? ` WHERE true ${onConflict}` : '';
  return { strings, values, types };
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
