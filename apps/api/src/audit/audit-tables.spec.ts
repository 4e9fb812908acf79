import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_TABLES, type AuditColumn } from './audit-tables.js';

const schema = readFileSync(new URL('../../../../prisma/schema.prisma', import.meta.url), 'utf8');

/** The migration that began the hash chains: columns added after it are hashed only when set. */
const CHAIN_MIGRATION = '20261126020000_audit_chain';

/** A model's scalar columns as the schema declares them, leaving out the auto-increment id. */
function schemaColumns(model: string): AuditColumn[] {
  const body = new RegExp(`^model ${model} \\{\\n([\\s\\S]*?)^\\}`, 'm').exec(schema)?.[1];
  if (!body) throw new Error(`no model ${model} in prisma/schema.prisma`);
  const columns: AuditColumn[] = [];
  for (const line of body.split('\n')) {
    const field = /^\s+(\w+)\s+(Int|String|DateTime)(\?)?(.*)$/.exec(line);
    if (!field) continue;
    const [, name, type, optional, attributes] = field;
    if (/@default\(autoincrement\(\)\)/.test(attributes!)) continue;
    const column: AuditColumn = { name: name!, type: type as AuditColumn['type'] };
    if (optional) column.optional = true;
    const fallback = /@default\(("(?:[^"\\]|\\.)*"|-?\d+)\)/.exec(attributes!)?.[1];
    if (fallback !== undefined) column.default = JSON.parse(fallback) as string | number;
    columns.push(column);
  }
  return columns;
}

/** The columns each migration folder after the chains' own adds to `table` (`ALTER TABLE … ADD COLUMN`). */
function columnsAddedAfterChains(folder: string, table: string): string[] {
  const root = new URL(`../../../../prisma/${folder}/`, import.meta.url);
  return readdirSync(root)
    .filter((name) => /^\d{14}_/.test(name) && name > CHAIN_MIGRATION)
    .sort()
    .flatMap((name) => {
      const sql = readFileSync(new URL(`${name}/migration.sql`, root), 'utf8');
      const statements = sql.split(';').filter((statement) => statement.includes(`ALTER TABLE "${table}"`));
      return statements.flatMap((statement) =>
        [...statement.matchAll(/ADD COLUMN "(\w+)"/g)].map((m) => m[1]!),
      );
    });
}

describe('the audit tables written with plain SQL', () => {
  it.each(AUDIT_TABLES.map((table) => [table.name, table] as const))(
    '%s has exactly the columns, types, optionality and defaults of prisma/schema.prisma',
    (name, table) => {
      const columns = table.columns.map(({ chainedWhenSet: _added, ...column }) => column);
      expect(columns).toEqual(schemaColumns(name));
    },
  );

  it.each(AUDIT_TABLES.map((table) => [table.name, table] as const))(
    '%s marks exactly the columns added after the hash chains began as hashed only when set, in both databases',
    (name, table) => {
      const marked = table.columns.filter((column) => column.chainedWhenSet).map((column) => column.name);
      expect(marked.sort()).toEqual(columnsAddedAfterChains('migrations', name).sort());
      expect(marked.sort()).toEqual(columnsAddedAfterChains('postgresql/migrations', name).sort());
      for (const column of table.columns.filter((each) => each.chainedWhenSet))
        expect(column, `${name}.${column.name}`).toMatchObject({ optional: true });
    },
  );
});
