#!/usr/bin/env bash
# Fetches Gateway API's standard-channel CRDs (GatewayClass, Gateway, HTTPRoute, GRPCRoute, ReferenceGrant, …)
# from the sigs.k8s.io/gateway-api module: the Go module proxy serves its zip, which `go mod download` checks against
# the checksum database. Only the YAML under config/crd/standard is taken from it (the module's Go code needs a
# newer Go than this machine's, which is why it is never built or extracted as a module). Cached outside the repo
# by version; prints the directory holding the YAML on stdout (logs go to stderr).
# shellcheck source=../cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../cluster/lib.sh"

MODULE=sigs.k8s.io/gateway-api
VERSION="${GATEWAY_API_VERSION:-v1.7.0}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/gateway-api/$VERSION"

if ! compgen -G "$CACHE/standard/*.yaml" >/dev/null; then
  command -v go >/dev/null || die "Go is required to fetch Gateway API's CRDs (https://go.dev/doc/install)"
  log "fetching $MODULE $VERSION's CRDs" >&2
  # Outside any module (a temp dir), so nothing here is rewritten. The download itself succeeds even when the
  # module's go directive is newer than this Go (the command then reports an error beside the zip's path).
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  (cd "$scratch" && GOFLAGS=-mod=mod go mod download -json "$MODULE@$VERSION" >"$scratch/download.json") || true
  tmp="$CACHE.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp/standard"
  python3 - "$scratch/download.json" "$MODULE@$VERSION" "$tmp/standard" <<'PY'
import json, os, sys, zipfile
download, prefix, target = sys.argv[1], sys.argv[2] + "/config/crd/standard/", sys.argv[3]
info = json.load(open(download))
if not info.get("Zip") or not info.get("Sum"):
    sys.exit(f"go mod download gave no verified zip: {info.get('Error', info)}")
with zipfile.ZipFile(info["Zip"]) as archive:
    names = [n for n in archive.namelist() if n.startswith(prefix) and n.endswith(".yaml") and "/" not in n[len(prefix):]]
    if not names:
        sys.exit(f"{info['Zip']} holds no {prefix}*.yaml")
    for name in names:
        with open(os.path.join(target, name[len(prefix):]), "wb") as out:
            out.write(archive.read(name))
PY
  rm -rf "$CACHE" && mv "$tmp" "$CACHE"
fi
echo "$CACHE/standard"
