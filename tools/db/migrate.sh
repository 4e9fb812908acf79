#!/usr/bin/env bash
# Applies committed migrations to the database DATABASE_URL names (SQLite .data/audit.db by default). With
# MIGRATE_WAIT_SECONDS, a database that cannot be reached yet (a PostgreSQL starting next to the app) is retried
# every 2 seconds for that long.
set -eu
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
wait_until=$(($(date +%s) + ${MIGRATE_WAIT_SECONDS:-0}))
# The repository's prisma.config.ts; in the image, which holds no TypeScript, the compiled configuration it
# re-exports (apps/api/src/config/prisma-config.ts).
config=prisma.config.ts
[ -f "$config" ] || config=apps/api/dist/config/prisma-config.js
while :; do
  # Hide Prisma's advice to drop the schema's url (Prisma 6 schemas still require it next to an adapter).
  npx --no-install prisma migrate deploy --config "$config" 2>&1 |
    { grep -vE '^$|WARNING: Your schema specifies|^- url$|will NOT be used|We recommend you to remove' || true; } >&2
  status=${PIPESTATUS[0]}
  [ "$status" = 0 ] && exit 0
  [ "$(date +%s)" -lt "$wait_until" ] || exit "$status"
  echo "[migrate] the database is not ready; retrying in 2 s" >&2
  sleep 2
done
