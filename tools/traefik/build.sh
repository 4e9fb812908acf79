#!/usr/bin/env bash
# Builds Traefik (a Gateway API data plane for tests) from the Go module pinned in tools/traefik, once per version
# set: cached outside the repo, keyed by a hash of the module files, and linked into .cluster/bin. Prints the
# binary's path on stdout (logs go to stderr). No `go generate` and no web UI build: the module ships
# webui/static with a placeholder file, which is all the embed needs (the dashboard is not used).
#
# v3.6.x, not v3.7.x: v3.7's ACME DNS providers need module versions the module proxy here refuses (403), and its
# dynamic configuration imports a nested module (github.com/traefik/traefik/dynamic/ext) that no proxy serves.
# First build: ~11 min on 2 busy cores; a relink after a flag change, seconds (Go's build cache).
# shellcheck source=../cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"

MODULE="$ROOT/tools/traefik"
PKG=github.com/traefik/traefik/v3
VERSION=$(awk -v p="$PKG" '$1=="require" && $2==p {print $3; exit} $1==p && $2 ~ /^v/ {print $2; exit}' "$MODULE/go.mod")
[ -n "$VERSION" ] || die "cannot read the $PKG version from $MODULE/go.mod"

LDFLAGS="-s -w -X $PKG/pkg/version.Version=$VERSION -X $PKG/pkg/version.BuildDate=1970-01-01T00:00:00Z"

key=$( (cat "$MODULE/go.mod" "$MODULE/go.sum"; echo "$LDFLAGS"; go version) | sha256sum | cut -c1-16)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/traefik/$VERSION-$key"

if [ ! -x "$CACHE/traefik" ]; then
  command -v go >/dev/null || die "Go is required to build Traefik (https://go.dev/doc/install)"
  log "building traefik ($PKG $VERSION); first build takes ~11 min" >&2
  tmp="$CACHE.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  start=$(date +%s)
  (cd "$MODULE" && CGO_ENABLED=0 GOFLAGS=-mod=readonly nice go build -trimpath -ldflags "$LDFLAGS" \
    -o "$tmp/traefik" "$PKG/cmd/traefik") >&2
  rm -rf "$CACHE" && mv "$tmp" "$CACHE"
  log "built in $(($(date +%s) - start))s into $CACHE" >&2
fi

mkdir -p "$BIN"
ln -sfn "$CACHE/traefik" "$BIN/traefik"
echo "$BIN/traefik"
