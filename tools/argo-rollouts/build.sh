#!/usr/bin/env bash
# Builds Argo Rollouts' controller (a benchmark peer) from the Go module pinned in tools/argo-rollouts, once per
# version set: cached outside the repo, keyed by a hash of the module files, and linked into .cluster/bin.
# Its version reads v<pinned>+unknown (a module zip carries no commit). Prints the binary's path on stdout (logs go
# to stderr). First build: ~10 min on 2 busy cores; a relink after a flag change, seconds (Go's build cache).
# shellcheck source=../cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"

MODULE="$ROOT/tools/argo-rollouts"
PKG=github.com/argoproj/argo-rollouts
VERSION=$(awk -v p="$PKG" '$1=="require" && $2==p {print $3; exit} $1==p && $2 ~ /^v/ {print $2; exit}' "$MODULE/go.mod")
[ -n "$VERSION" ] || die "cannot read the $PKG version from $MODULE/go.mod"

LDFLAGS="-s -w -X $PKG/utils/version.version=${VERSION#v} -X $PKG/utils/version.buildDate=1970-01-01T00:00:00Z"
LDFLAGS+=" -X $PKG/utils/version.gitTreeState=clean"

key=$( (cat "$MODULE/go.mod" "$MODULE/go.sum"; echo "$LDFLAGS"; go version) | sha256sum | cut -c1-16)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/argo-rollouts/$VERSION-$key"

if [ ! -x "$CACHE/rollouts-controller" ]; then
  command -v go >/dev/null || die "Go is required to build Argo Rollouts (https://go.dev/doc/install)"
  log "building rollouts-controller ($PKG $VERSION); first build takes ~10 min" >&2
  tmp="$CACHE.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  start=$(date +%s)
  (cd "$MODULE" && CGO_ENABLED=0 GOFLAGS=-mod=readonly nice go build -trimpath -ldflags "$LDFLAGS" \
    -o "$tmp/rollouts-controller" "$PKG/cmd/rollouts-controller") >&2
  rm -rf "$CACHE" && mv "$tmp" "$CACHE"
  log "built in $(($(date +%s) - start))s into $CACHE" >&2
fi

mkdir -p "$BIN"
ln -sfn "$CACHE/rollouts-controller" "$BIN/rollouts-controller"
echo "$BIN/rollouts-controller"
