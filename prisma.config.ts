// Prisma CLI configuration: the JavaScript schema engine with a driver adapter (no native engine downloads).
// SQLite under .data/ by default; PostgreSQL when DATABASE_URL is a postgres:// URL.
import { defineConfig } from 'prisma/config';
import { databaseTarget, ensureSqliteDirectory } from './apps/api/src/config/database-target.js';
import { migrationAdapter } from './tools/db/migration-adapter.js';

const target = databaseTarget(process.env.DATABASE_URL);
ensureSqliteDirectory(target);

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: target.schema,
  migrations: { path: target.migrations },
  adapter: () => migrationAdapter(target),
});
