// The Prisma CLI's configuration (migrate deploy/diff, generate): the JavaScript schema engine with a driver
// adapter (no native engine downloads). SQLite under .data/ by default; PostgreSQL when DATABASE_URL is a
// postgres:// URL. The repository's prisma.config.ts re-exports it; the image, which holds no TypeScript, names its
// compiled twin apps/api/dist/config/prisma-config.js with --config (tools/db/migrate.sh).
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'prisma/config';
import { databaseTarget, ensureSqliteDirectory } from './database-target.js';
import { migrationAdapter } from './migration-adapter.js';

// Prisma resolves relative paths from the folder of the config file it loaded, so these are absolute: this file
// (src/config/ or dist/config/) is four levels below the repository's root.
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const target = databaseTarget(process.env.DATABASE_URL);
ensureSqliteDirectory(target);

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: resolve(root, target.schema),
  migrations: { path: resolve(root, target.migrations) },
  adapter: () => migrationAdapter(target),
});
