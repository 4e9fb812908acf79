import { describe, expect, it } from 'vitest';
import { DEFAULT_DATABASE_URL, databaseTarget } from './database-target.js';

describe('databaseTarget', () => {
  it('is the embedded SQLite file when DATABASE_URL is unset or blank', () => {
    for (const url of [undefined, '', '  ']) {
      expect(databaseTarget(url)).toEqual({
        provider: 'sqlite',
        url: DEFAULT_DATABASE_URL,
        schema: 'prisma/schema.prisma',
        migrations: 'prisma/migrations',
      });
    }
  });

  it('keeps a file: URL as given', () => {
    expect(databaseTarget('file:/tmp/x.db')).toMatchObject({ provider: 'sqlite', url: 'file:/tmp/x.db' });
  });

  it.each(['postgres://u:p@h:5432/db', 'postgresql://u@h/db?sslmode=disable'])(
    'selects PostgreSQL for %s',
    (url) => {
      expect(databaseTarget(url)).toEqual({
        provider: 'postgresql',
        url,
        schema: 'prisma/postgresql/schema.prisma',
        migrations: 'prisma/postgresql/migrations',
      });
    },
  );

  it.each(['mysql://h/db', 'sqlite:x.db', 'just-a-path.db'])(
    'rejects %s and names only the scheme',
    (url) => {
      expect(() => databaseTarget(url)).toThrow(
        /DATABASE_URL must start with file:, postgres:\/\/ or postgresql:\/\//,
      );
    },
  );

  it('never echoes credentials in its error', () => {
    expect(() => databaseTarget('mysql://admin:secret@h/db')).toThrow(/got "mysql:"\)$/);
  });
});
