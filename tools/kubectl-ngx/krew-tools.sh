#!/usr/bin/env bash
# Builds krew and its manifest validator (sigs.k8s.io/krew, from the Go module proxy) once per version, into a
# cache outside the repo, and prints that folder. The plugin's test installs the plugin with them.
set -euo pipefail
VERSION=v0.4.3
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/krew/$VERSION"
if [ ! -x "$CACHE/krew" ] || [ ! -x "$CACHE/validate-krew-manifest" ]; then
  command -v go >/dev/null || { echo "krew-tools: Go is required to build krew" >&2; exit 1; }
  mkdir -p "$CACHE"
  GOBIN="$CACHE" go install "sigs.k8s.io/krew/cmd/krew@$VERSION" "sigs.k8s.io/krew/cmd/validate-krew-manifest@$VERSION" >&2
fi
echo "$CACHE"
