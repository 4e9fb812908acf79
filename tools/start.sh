#!/usr/bin/env bash
# Starts the app (API + UI on one port) against KUBECONFIG, or against the local cluster, starting it if needed.
# `--dev` runs the UI in Next.js development mode and rebuilds/restarts the API on change.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NX_NO_CLOUD=true NX_DAEMON="${NX_DAEMON:-false}" NEXT_TELEMETRY_DISABLED=1
[ -d node_modules ] || { echo "[start] dependencies are missing: run 'npm run setup' first" >&2; exit 1; }

if [ -z "${KUBECONFIG:-}" ]; then
  bash tools/cluster/up.sh
  export KUBECONFIG="$PWD/.cluster/kubeconfig"
fi
bash tools/db/migrate.sh

if [ "${1:-}" = "--dev" ]; then
  export WEB_MODE=development
  npx --no-install nx run api:build --outputStyle=static
  npx --no-install tsc -p apps/api/tsconfig.build.json --watch --preserveWatchOutput >/dev/null &
  trap 'kill $! 2>/dev/null' EXIT
  node --watch apps/api/dist/main.js
else
  npx --no-install nx run-many -t build --outputStyle=static >/dev/null
  exec node apps/api/dist/main.js
fi
