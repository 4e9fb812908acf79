#!/usr/bin/env bash
# The whole test suite: lint, unit tests, and integration/end-to-end tests against the local control plane
# (started if not running), PostgreSQL and a headless Chromium. Ends with one line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
export NX_NO_CLOUD=true NX_DAEMON="${NX_DAEMON:-false}" NEXT_TELEMETRY_DISABLED=1
log() { printf '[test] %s\n' "$*" >&2; }
mkdir -p .data

[ -d node_modules ] || { log "dependencies are missing: run 'npm run setup' first"; exit 1; }
bash tools/cluster/up.sh || { log "the local cluster did not start"; echo "0 passed, 1 failed"; exit 1; }
if command -v pg_lsclusters >/dev/null; then
  TEST_POSTGRES_URL=$(bash tools/db/postgres-up.sh | tail -n 1) && export TEST_POSTGRES_URL
fi
[ -n "${TEST_POSTGRES_URL:-}" ] || log "PostgreSQL is not available: its tests will be skipped"

checks_failed=0
log "lint"
npm run --silent lint || checks_failed=$((checks_failed + 1))
log "build"
npx --no-install nx run-many -t build --outputStyle=static || checks_failed=$((checks_failed + 1))

results=.data/test-results.json
rm -f "$results"
npx --no-install vitest run --reporter=default --reporter=json --outputFile.json="$results"
vitest_status=$?

node tools/test/summary.mjs "$results" "$checks_failed"
summary_status=$?
[ "$vitest_status" = 0 ] && [ "$checks_failed" = 0 ] && [ "$summary_status" = 0 ]
