#!/usr/bin/env bash
# Builds the control plane binaries from the pinned Go module in tools/controlplane, once per version set.
# They are cached outside the repo, keyed by a hash of the module files, and linked into .cluster/bin.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MODULE="$ROOT/tools/controlplane"
K8S_VERSION=$(awk '$1=="k8s.io/kubernetes" && $2 ~ /^v/ {print $2; exit}' "$MODULE/go.mod")
[ -n "$K8S_VERSION" ] || die "cannot read the k8s.io/kubernetes version from $MODULE/go.mod"
K8S_MINOR=$(echo "$K8S_VERSION" | cut -d. -f2)

# Stamp the real release into the binaries (a module build would report v0.0.0-master otherwise).
LDFLAGS="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  LDFLAGS+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$K8S_MINOR"
  LDFLAGS+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
done

key=$( (cat "$MODULE/go.mod" "$MODULE/go.sum"; find "$MODULE/cmd" -name '*.go' | sort | xargs cat; echo "$LDFLAGS"; go version) | sha256sum | cut -c1-16)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/controlplane/$K8S_VERSION-$key"

complete() { for b in "${BINARIES[@]}"; do [ -x "$CACHE/$b" ] || return 1; done; }

if ! complete; then
  command -v go >/dev/null || die "Go is required to build the control plane (https://go.dev/doc/install)"
  log "building etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok ($K8S_VERSION); first build takes ~10 min"
  tmp="$CACHE.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  start=$(date +%s)
  (cd "$MODULE" && GOFLAGS=-mod=readonly go build -trimpath -ldflags "$LDFLAGS" -o "$tmp/" ./cmd/...)
  rm -rf "$CACHE" && mv "$tmp" "$CACHE"
  log "built in $(($(date +%s) - start))s into $CACHE"
fi

mkdir -p "$BIN"
for b in "${BINARIES[@]}"; do ln -sfn "$CACHE/$b" "$BIN/$b"; done
