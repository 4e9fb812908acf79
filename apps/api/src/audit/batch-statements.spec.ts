import { describe, expect, it } from 'vitest';
import type { AuditTable } from './audit-tables.js';
import { AuditRefusedError } from './audit-writer.js';
import type { SqlStatement } from './audit-database.js';
import { inList, insertStatements, joinedStatement } from './batch-statements.js';

const table: AuditTable = {
  name: 'ReconcileNoop',
  columns: [
    { name: 'name', type: 'String' },
    { name: 'note', type: 'String', optional: true },
    { name: 'count', type: 'Int', default: 1 },
    { name: 'at', type: 'DateTime' },
  ],
};

const at = new Date('2026-11-23T10:00:00.000Z');

/** The statement with `?` for each value, as SQLite reads it. */
const text = ({ strings }: SqlStatement) => strings.join('?');

describe('insertStatements', () => {
  it('writes rows as one multi-row INSERT, a value per column, defaults and NULLs filled in', () => {
    const [statement, ...more] = insertStatements(table, [
      { name: 'a', note: 'n', count: 3, at },
      { name: 'b', at },
    ]);
    expect(more).toEqual([]);
    expect(text(statement!)).toBe(
      'INSERT INTO "ReconcileNoop" ("name", "note", "count", "at") VALUES (?, ?, ?, ?), (?, ?, ?, ?)',
    );
    expect(statement!.values).toEqual(['a', 'n', 3, at, 'b', null, 1, at]);
    expect(statement!.types).toEqual([
      'String',
      'String',
      'Int',
      'DateTime',
      'String',
      'String',
      'Int',
      'DateTime',
    ]);
  });

  it('appends the conflict clause and writes nothing for no rows', () => {
    const [statement] = insertStatements(table, [{ name: 'a', at }], 'ON CONFLICT ("name") DO NOTHING');
    expect(text(statement!)).toMatch(/VALUES \(\?, \?, \?, \?\) ON CONFLICT \("name"\) DO NOTHING$/);
    expect(insertStatements(table, [])).toEqual([]);
  });

  it('splits a large batch into statements of at most 8,000 values, keeping the rows in order', () => {
    const rows = Array.from({ length: 4_500 }, (_, index) => ({ name: `n${index}`, at }));
    const statements = insertStatements(table, rows);
    expect(statements.map((statement) => statement.values.length)).toEqual([8_000, 8_000, 2_000]);
    expect(statements.flatMap((statement) => statement.values.filter((_, index) => index % 4 === 0))).toEqual(
      rows.map((row) => row.name),
    );
    for (const statement of statements) expect(statement.strings).toHaveLength(statement.values.length + 1);
  });

  it.each([
    ['a missing required value', { at }, /ReconcileNoop\.name is required/],
    ['a null required value', { name: null, at }, /ReconcileNoop\.name is required/],
    ['text for an Int', { name: 'a', count: 'slow', at }, /ReconcileNoop\.count is not a valid Int/],
    ['a fraction for an Int', { name: 'a', count: 1.5, at }, /count is not a valid Int/],
    ['an Int beyond 32 bits', { name: 'a', count: 2 ** 31, at }, /count is not a valid Int/],
    ['an invalid Date', { name: 'a', at: new Date(Number.NaN) }, /ReconcileNoop\.at is not a valid DateTime/],
    ['a time as text', { name: 'a', at: at.toISOString() }, /at is not a valid DateTime/],
    ['a number for a String', { name: 7, at }, /ReconcileNoop\.name is not a valid String/],
    ['a field the table lacks', { name: 'a', at, extra: 1 }, /ReconcileNoop has no column extra/],
  ])('refuses a batch with %s before anything is sent', (_, bad, message) => {
    const attempt = () => insertStatements(table, [{ name: 'good', at }, bad]);
    expect(attempt).toThrow(AuditRefusedError);
    expect(attempt).toThrow(message);
  });
});

describe('inList and joinedStatement', () => {
  it('join SQL text and lists into one statement, each value with its type, in order', () => {
    const statement = joinedStatement(
      'SELECT 1 FROM "T" WHERE "a" IN ',
      inList('(', ['x', 'y'], ')'),
      ' AND "n" = ',
      { strings: ['', ''], values: [3], types: ['Int'] },
      ' AND "b" IN ',
      inList('(', ['z'], ')'),
    );
    expect(statement).toEqual({
      strings: ['SELECT 1 FROM "T" WHERE "a" IN (', ', ', ') AND "n" = ', ' AND "b" IN (', ')'],
      values: ['x', 'y', 3, 'z'],
      types: ['String', 'String', 'Int', 'String'],
    });
    expect(statement.strings).toHaveLength(statement.values.length + 1);
  });
});
