#!/usr/bin/env bash
# Applies committed migrations to the database DATABASE_URL names (SQLite .data/audit.db by default).
set -eu
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# Hide Prisma's advice to drop the schema's url (Prisma 6 schemas still require it next to an adapter).
npx --no-install prisma migrate deploy 2>&1 |
  { grep -vE '^$|nodedir|WARNING: Your schema specifies|^- url$|will NOT be used|We recommend you to remove' || true; } >&2
exit "${PIPESTATUS[0]}"
