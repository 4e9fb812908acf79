import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { derivePostgresSchema } from './derive-postgres-schema.mjs';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('PostgreSQL schema twin', () => {
  it('is exactly what prisma/schema.prisma derives (run `npm run db:derive` after editing the models)', () => {
    expect(read('prisma/postgresql/schema.prisma')).toBe(derivePostgresSchema(read('prisma/schema.prisma')));
  });

  it('refuses a source whose datasource it does not recognise', () => {
    expect(() => derivePostgresSchema('datasource db {\n  provider = "mysql"\n}\n')).toThrow(/no longer has/);
  });
});
