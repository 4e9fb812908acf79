#!/usr/bin/env bash
# The whole test suite: lint, typecheck, builds and unit tests (Nx targets, cached), then the integration/end-to-end
# tests against the local control plane (started if not running), PostgreSQL and a headless Chromium. Ends with one
# line: "N passed, N failed".
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 1
export NX_NO_CLOUD=true NX_DAEMON="${NX_DAEMON:-false}" NEXT_TELEMETRY_DISABLED=1
log() { printf '[test] %s\n' "$*" >&2; }
mkdir -p .data

[ -d node_modules ] || { log "dependencies are missing: run 'npm run setup' first"; exit 1; }
# kube-apiserver writes its audit log for the whole run, so that no file restarts it to read who sent a write
# (test/support/cluster-audit-log.setup.ts restarts it once if the cluster was started without one).
export CLUSTER_AUDIT_LOG="${CLUSTER_AUDIT_LOG:-$PWD/.cluster/apiserver-audit.log}"
bash tools/cluster/up.sh || { log "the local cluster did not start"; echo "0 passed, 1 failed"; exit 1; }
# Helm for test/deploy-helm.test.ts: built by npm run setup, so a no-op unless its module changed since.
bash tools/helm/build.sh >/dev/null || log "Helm did not build: test/deploy-helm.test.ts will fail"
if command -v pg_lsclusters >/dev/null; then
  TEST_POSTGRES_URL=$(bash tools/db/postgres-up.sh | tail -n 1) && export TEST_POSTGRES_URL
fi
[ -n "${TEST_POSTGRES_URL:-}" ] || log "PostgreSQL is not available: its tests will be skipped"

checks_failed=0
# Nx runs every step below and caches it: what `npm run setup` or an earlier run already built, checked or tested
# with the same inputs is replayed, not redone (see nx.json).
log "lint: ESLint, Prettier, ShellCheck and TypeScript (nx run-many -t lint typecheck)"
npm run --silent lint -- --outputStyle=static || checks_failed=$((checks_failed + 1))
log "build (nx run-many -t build)"
npx --no-install nx run-many -t build --outputStyle=static || checks_failed=$((checks_failed + 1))

# Unit tests, one Nx task a project; each writes its Vitest JSON report under .data/unit-results/ (restored from
# the cache when the task is).
unit_results=.data/unit-results
rm -rf "$unit_results"
log "unit tests (nx run-many -t test)"
npx --no-install nx run-many -t test --outputStyle=static
unit_status=$?

# Integration tests against the live cluster: never cached (nx run workspace:integration, cache: false). The builds
# it depends on were the step above: not tried a second time when they failed.
results=.data/test-results.json
rm -f .data/test-durations.json
rm -f "$results"
log "integration tests (nx run workspace:integration)"
npx --no-install nx run workspace:integration --excludeTaskDependencies --outputStyle=static
vitest_status=$?

node tools/test/summary.mjs "$results" "$checks_failed" --unit="$unit_results" --unit-status="$unit_status" \
  --durations=.data/test-durations.json
summary_status=$?
[ "$unit_status" = 0 ] && [ "$vitest_status" = 0 ] && [ "$checks_failed" = 0 ] && [ "$summary_status" = 0 ]
