#!/usr/bin/env bash
# Builds Flagger (a benchmark peer: progressive delivery through Gateway API) from the Go module pinned in
# tools/flagger, once per version set: cached outside the repo, keyed by a hash of the module files, and linked into
# .cluster/bin. Its revision reads "unknown" (a module zip carries no commit). Beside the binary it keeps Flagger's
# own Canary, MetricTemplate and AlertProvider CRDs (artifacts/flagger/crd.yaml of the same module zip), linked as
# .cluster/bin/flagger-crd.yaml, so the tests install exactly the CRDs of the binary they run. Prints the binary's
# path on stdout (logs go to stderr). First build: ~6 min on 2 busy cores (2 min of CPU); then only the links (cached).
# shellcheck source=../cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"

MODULE="$ROOT/tools/flagger"
PKG=github.com/fluxcd/flagger
VERSION=$(awk -v p="$PKG" '$1=="require" && $2==p {print $3; exit} $1==p && $2 ~ /^v/ {print $2; exit}' "$MODULE/go.mod")
[ -n "$VERSION" ] || die "cannot read the $PKG version from $MODULE/go.mod"

LDFLAGS="-s -w -X $PKG/pkg/version.VERSION=${VERSION#v}"

key=$( (cat "$MODULE/go.mod" "$MODULE/go.sum"; echo "$LDFLAGS"; go version) | sha256sum | cut -c1-16)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/flagger/$VERSION-$key"

if [ ! -x "$CACHE/flagger" ] || [ ! -s "$CACHE/crd.yaml" ]; then
  command -v go >/dev/null || die "Go is required to build Flagger (https://go.dev/doc/install)"
  log "building flagger ($PKG $VERSION); the first build takes a few minutes" >&2
  tmp="$CACHE.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  start=$(date +%s)
  (cd "$MODULE" && CGO_ENABLED=0 GOFLAGS=-mod=readonly nice go build -trimpath -ldflags "$LDFLAGS" \
    -o "$tmp/flagger" "$PKG/cmd/flagger") >&2
  # The module's directory in Go's module cache, read-only: the CRDs are copied as the zip holds them.
  source_dir=$(cd "$MODULE" && GOFLAGS=-mod=readonly go list -m -f '{{.Dir}}' "$PKG")
  cp "$source_dir/artifacts/flagger/crd.yaml" "$tmp/crd.yaml" && chmod 644 "$tmp/crd.yaml"
  rm -rf "$CACHE" && mv "$tmp" "$CACHE"
  log "built in $(($(date +%s) - start))s into $CACHE" >&2
fi

mkdir -p "$BIN"
ln -sfn "$CACHE/flagger" "$BIN/flagger"
ln -sfn "$CACHE/crd.yaml" "$BIN/flagger-crd.yaml"
echo "$BIN/flagger"
