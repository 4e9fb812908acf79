#!/usr/bin/env bash
# npm run test:image: builds the image when there is none yet (tools/image/build.sh --if-missing; `npm run image`
# builds it again), then runs test/image/image.test.ts, which starts it against the local cluster and a throwaway
# database on the suite's PostgreSQL. Needs root (buildah, chroot) and the local cluster running (npm run cluster:up).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
log() { printf '[test:image] %s\n' "$*" >&2; }

.cluster/bin/kubectl --kubeconfig .cluster/kubeconfig get --raw /readyz >/dev/null 2>&1 ||
  { log "the local cluster is not running: start it with npm run cluster:up"; exit 1; }
bash tools/image/build.sh --if-missing
TEST_POSTGRES_URL=$(bash tools/db/postgres-up.sh | tail -n 1)
export TEST_POSTGRES_URL
exec npx --no-install vitest run --project image
