#!/usr/bin/env bash
# Builds Helm (helm.sh/helm/v3's cmd/helm, the `tool` of the Go module pinned in tools/helm) once per version set:
# cached outside the repo, keyed by a hash of the module files, and linked into .cluster/bin/helm. It renders and
# installs deploy/helm/nginx-control-plane (npm run deploy:render, test/deploy-helm.test.ts). Prints the binary's
# path on stdout (logs go to stderr). First build: a few minutes on 2 cores; after that, nothing to do.
# shellcheck source=../cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"

MODULE="$ROOT/tools/helm"
PKG=helm.sh/helm/v3
VERSION=$(awk -v p="$PKG" '$1=="require" && $2==p {print $3; exit} $1==p && $2 ~ /^v/ {print $2; exit}' "$MODULE/go.mod")
[ -n "$VERSION" ] || die "cannot read the $PKG version from $MODULE/go.mod"
# What `helm version` reports and the Kubernetes version `helm template` and `helm lint` assume (.Capabilities),
# as Helm's own Makefile stamps them: the client-go minor it is built with.
CLIENT_GO=$(awk '$1=="k8s.io/client-go" && $2 ~ /^v0\./ {print $2; exit}' "$MODULE/go.mod")
[ -n "$CLIENT_GO" ] || die "cannot read the k8s.io/client-go version from $MODULE/go.mod"
K8S_MINOR=$(echo "$CLIENT_GO" | cut -d. -f2)

LDFLAGS="-s -w -X $PKG/internal/version.version=$VERSION -X $PKG/internal/version.gitTreeState=clean"
for pkg in "$PKG/pkg/lint/rules" "$PKG/pkg/chartutil"; do
  LDFLAGS+=" -X $pkg.k8sVersionMajor=1 -X $pkg.k8sVersionMinor=$K8S_MINOR"
done

key=$( (cat "$MODULE/go.mod" "$MODULE/go.sum"; echo "$LDFLAGS"; go version) | sha256sum | cut -c1-16)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/helm/$VERSION-$key"

if [ ! -x "$CACHE/helm" ]; then
  command -v go >/dev/null || die "Go is required to build Helm (https://go.dev/doc/install)"
  log "building helm ($PKG $VERSION); first build takes a few minutes" >&2
  tmp="$CACHE.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  start=$(date +%s)
  (cd "$MODULE" && CGO_ENABLED=0 GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly" nice go build -trimpath \
    -ldflags "$LDFLAGS" -o "$tmp/helm" "$PKG/cmd/helm") >&2
  rm -rf "$CACHE" && mv "$tmp" "$CACHE"
  log "built in $(($(date +%s) - start))s into $CACHE" >&2
fi

mkdir -p "$BIN"
ln -sfn "$CACHE/helm" "$BIN/helm"
echo "$BIN/helm"
