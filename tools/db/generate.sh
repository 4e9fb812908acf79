#!/usr/bin/env bash
# Generates both Prisma clients (SQLite and PostgreSQL) from the twin schemas. No database is contacted.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
node tools/db/derive-postgres-schema.mjs --check
DATABASE_URL=file:./.data/audit.db npx --no-install prisma generate >/dev/null
DATABASE_URL=postgresql://generate-only@127.0.0.1/none npx --no-install prisma generate >/dev/null
echo "[db] generated Prisma clients in apps/api/generated/" >&2
