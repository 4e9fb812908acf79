#!/usr/bin/env bash
# Builds otelcol-ngx (an OpenTelemetry Collector with the OTLP receiver and the debug exporter) from the pinned Go
# module beside this script, once per version set: cached outside the repo, keyed by a hash of the module files,
# and linked into .cluster/bin as tools/cluster/build.sh does for the control plane binaries.
# shellcheck source=../cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"

MODULE="$ROOT/tools/otel-collector"
VERSION=$(awk '$1=="go.opentelemetry.io/collector/otelcol" && $2 ~ /^v/ {print $2; exit}' "$MODULE/go.mod")
[ -n "$VERSION" ] || die "cannot read the go.opentelemetry.io/collector/otelcol version from $MODULE/go.mod"

key=$( (cat "$MODULE/go.mod" "$MODULE/go.sum" "$MODULE"/*.go; go version) | sha256sum | cut -c1-16)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/otel-collector/$VERSION-$key"

if [ ! -x "$CACHE/otelcol-ngx" ]; then
  command -v go >/dev/null || die "Go is required to build the OpenTelemetry Collector (https://go.dev/doc/install)"
  log "building otelcol-ngx (collector $VERSION); the first build takes a few minutes"
  tmp="$CACHE.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  start=$(date +%s)
  (cd "$MODULE" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "-s -w" -o "$tmp/otelcol-ngx" .)
  rm -rf "$CACHE" && mv "$tmp" "$CACHE"
  log "built in $(($(date +%s) - start))s into $CACHE"
fi

mkdir -p "$BIN"
ln -sfn "$CACHE/otelcol-ngx" "$BIN/otelcol-ngx"
