#!/usr/bin/env bash
# Sets up everything, idempotently: system packages, npm dependencies, Prisma clients and migrations, builds,
# and (unless KUBECONFIG points at your own cluster) the local Kubernetes control plane.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export NX_NO_CLOUD=true NX_DAEMON="${NX_DAEMON:-false}" NEXT_TELEMETRY_DISABLED=1
log() { printf '[setup] %s\n' "$*" >&2; }

# openssl and curl run the local cluster; postgresql and chromium are for the test suite (PostgreSQL audit
# tests, browser tests), shellcheck for `npm run lint`, nginx for `nginx -t` of configurations
# (test/nginx-config.test.ts; Debian 12's `nginx` package holds the binary, `nginx-core` only adds modules),
# prometheus for the canary analyses' tests (it scrapes an exporter the test controls). All come from Debian's packages.
missing=()
command -v openssl >/dev/null || missing+=(openssl)
command -v curl >/dev/null || missing+=(curl)
command -v pg_lsclusters >/dev/null || missing+=(postgresql)
command -v chromium >/dev/null || missing+=(chromium)
command -v make >/dev/null && command -v g++ >/dev/null || missing+=(build-essential)
command -v shellcheck >/dev/null || missing+=(shellcheck)
# In /usr/sbin, which a non-root PATH may lack.
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || missing+=(nginx)
command -v prometheus >/dev/null || missing+=(prometheus)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    log "installing ${missing[*]}"
    apt-get update -qq >/dev/null
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    log "missing system packages: ${missing[*]} (sudo apt-get install ${missing[*]})"
    exit 1
  fi
fi
command -v go >/dev/null || { log "Go is required to build the local control plane"; exit 1; }
command -v python3 >/dev/null || { log "Python 3 is required for the conformance tests' Python client"; exit 1; }
command -v node >/dev/null || { log "Node.js 20.19+ is required"; exit 1; }

# better-sqlite3 compiles against the local Node headers when no prebuilt binary can be fetched. node-gyp reads
# npm_package_config_node_gyp_<option> as well as npm_config_<option>; npm warns about the latter ("Unknown env
# config") for every unknown name since npm 11, so the headers are passed the first way.
if [ -z "${npm_package_config_node_gyp_nodedir:-}" ] && [ -f /usr/include/node/node_version.h ]; then
  export npm_package_config_node_gyp_nodedir=/usr
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "installing npm dependencies"
  # `npm ci`: exactly what package-lock.json lists (every platform's optional binaries included), which it never
  # rewrites. Install scripts run only where package.json's allowScripts says true; the others are listed false.
  npm ci --no-fund --no-audit
fi

bash tools/db/migrate.sh
# Nx builds the libraries, the Prisma clients (api:generate), the API and the web UI, and caches each: `npm start`
# and `npm test` build again only what changed since.
log "building the Prisma clients, the libraries, the API and the web UI"
npx --no-install nx run-many -t build --outputStyle=static >/dev/null
log "building client-go's conformance checks and installing the Python kubernetes client"
bash tools/conformance/setup.sh
# Helm renders the chart deploy/helm/nginx-control-plane (npm run deploy:render) and installs it in the tests.
bash tools/helm/build.sh >/dev/null
# An OpenTelemetry Collector (OTLP receiver, debug exporter) receives the app's traces in test/tracing.test.ts.
bash tools/otel-collector/build.sh >/dev/null
# Gateway API peers: Flagger (test/flagger-gateway.test.ts) and Traefik as the Gateway (test/gateway-data-plane.test.ts).
# Cached once built; the first builds take ~6 and ~11 min on 2 cores.
bash tools/flagger/build.sh >/dev/null
bash tools/traefik/build.sh >/dev/null

if [ -z "${KUBECONFIG:-}" ]; then
  bash tools/cluster/up.sh
else
  log "KUBECONFIG is set ($KUBECONFIG): using that cluster, not starting the local one"
fi
log "done"
