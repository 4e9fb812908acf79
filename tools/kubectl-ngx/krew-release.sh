#!/usr/bin/env bash
# Packs the built plugin for krew: a tar.gz holding `kubectl-ngx` (the bundle, apps/kubectl-ngx/dist), byte for
# byte the same for the same bundle, and deploy/krew/ngx.yaml with its uri and sha256 filled in.
# Usage: krew-release.sh BASE_URI   (the archive's uri is BASE_URI/kubectl-ngx-<version>.tar.gz)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BASE_URI=${1:?usage: krew-release.sh BASE_URI}
BUNDLE="$ROOT/apps/kubectl-ngx/dist/kubectl-ngx.cjs"
[ -f "$BUNDLE" ] || { echo "krew-release: build the plugin first (npx nx run kubectl-ngx:build)" >&2; exit 1; }
VERSION=$(awk '$1 == "version:" {print $2; exit}' "$ROOT/deploy/krew/ngx.yaml")
OUT="$ROOT/apps/kubectl-ngx/dist/krew"
ARCHIVE="kubectl-ngx-$VERSION.tar.gz"

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
install -m 0755 "$BUNDLE" "$staging/kubectl-ngx"
mkdir -p "$OUT"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$staging" -cf - kubectl-ngx |
  gzip -n -9 >"$OUT/$ARCHIVE"
SHA=$(sha256sum "$OUT/$ARCHIVE" | cut -d' ' -f1)
sed -e "s|RELEASE_URI|$BASE_URI/$ARCHIVE|" -e "s|RELEASE_SHA256|$SHA|" "$ROOT/deploy/krew/ngx.yaml" >"$OUT/ngx.yaml"
echo "$OUT/ngx.yaml"
