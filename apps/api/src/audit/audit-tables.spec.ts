import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AUDIT_TABLES, type AuditColumn } from './audit-tables.js';

const schema = readFileSync(new URL('../../../../prisma/schema.prisma', import.meta.url), 'utf8');

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

describe('the audit tables written with plain SQL', () => {
  it.each(AUDIT_TABLES.map((table) => [table.name, table] as const))(
    '%s has exactly the columns, types, optionality and defaults of prisma/schema.prisma',
    (name, table) => {
      expect(table.columns).toEqual(schemaColumns(name));
    },
  );
});
