import { afterEach, describe, expect, it } from 'vitest';
import { databaseTarget } from '../config/database-target.js';
import { AuditDatabase } from './audit-database.js';

describe('AuditDatabase over an in-memory SQLite database', () => {
  let database: AuditDatabase | undefined;
  afterEach(async () => database?.close());

  it('creates every table of the migrations, so the audit trail can be written from the start', async () => {
    database = await AuditDatabase.connect(databaseTarget('file::memory:'));
    const rows = await database.interactive((transaction) =>
      transaction.query({
        strings: [
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        ],
        values: [],
        types: [],
      }),
    );
    const tables = rows.map(([name]) => name);
    expect(tables).toEqual(expect.arrayContaining(['ReconcileRecord', 'ChangeRecord']));
  });
});
