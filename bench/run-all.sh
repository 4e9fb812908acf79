#!/usr/bin/env bash
# npm run bench [-- --quick]: every benchmark in turn, each printing its figures next to a reference measured in
# the same run. Needs the local cluster (npm run cluster:up).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
npx --no-install tsx bench/runtime.bench.ts "$@"
npx --no-install tsx bench/api.bench.ts "$@"
npx --no-install tsx bench/ui.bench.ts "$@"
npx --no-install tsx bench/fanout.bench.ts "$@"
npx --no-install tsx bench/convergence.bench.ts "$@"
npx --no-install tsx bench/quota.bench.ts "$@"
npx --no-install tsx bench/rollout.bench.ts "$@"
npx --no-install tsx bench/handover.bench.ts "$@"
npm run --silent bench:timeline -- "$@"
