#!/usr/bin/env bash
# Builds the app's image from the Dockerfile without Docker: buildah as root (vfs storage, chroot isolation) on a
# base made here from Debian's packages and Node.js's npm package (tools/image/base.sh, built once per version set
# and cached). An image already built from the same sources and base is kept. Prints the image's name and size.
#   IMAGE         the image's name (default localhost/nginx-control-plane:latest)
#   --if-missing  build only when there is no image of that name yet (what npm run test:image does)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
log() { printf '[image] %s\n' "$*" >&2; }
die() { log "$*"; exit 1; }
IMAGE=${IMAGE:-localhost/nginx-control-plane:latest}
BUILDAH=(buildah --storage-driver vfs)
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/nginx-control-plane/image"

[ "$(id -u)" = 0 ] || die "run as root: buildah builds here as root, with vfs storage and chroot isolation"
missing=()
command -v buildah >/dev/null || missing+=(buildah)
command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

image_id() { "${BUILDAH[@]}" inspect --type image --format '{{.FromImageID}}' "$IMAGE" 2>/dev/null || true; }
# The label naming what an image was built from: the base, and the content of every file of the checkout that Git
# does not ignore (the build context, give or take .dockerignore). Empty outside a Git checkout: then always built.
LABEL=nginx-control-plane.sources
built_from() {
  "${BUILDAH[@]}" inspect --type image --format "{{index .OCIv1.Config.Labels \"$LABEL\"}}" "$IMAGE" 2>/dev/null || true
}
sources() {
  git rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
  { echo "$1"; git ls-files -z -co --exclude-standard | { xargs -0 sha256sum 2>/dev/null || true; }; } | sha256sum | cut -c1-16
}

if [ "${1:-}" = --if-missing ] && [ -n "$(image_id)" ]; then
  log "$IMAGE exists (npm run image builds it again if the sources changed)"
else
  start=$(date +%s)
  base=$(bash tools/image/base.sh)
  key=$(sources "$base")
  if [ -n "$key" ] && [ "$(built_from)" = "$key" ]; then
    log "$IMAGE is up to date: built from these sources on $base"
  else
    previous=$(image_id)
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    # Bind mounts of the build's RUN steps, in no layer: npm's cache, kept across builds, and behind a TLS-inspecting
    # proxy (NODE_EXTRA_CA_CERTS names its CA bundle here) that bundle, for npm in the build. The runtime stage runs
    # nothing, so their mount points are in the build stage only.
    mkdir -p "$CACHE/npm"
    volumes=(--volume "$CACHE/npm:/root/.npm")
    if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
      echo 'cafile=/run/build-ca.crt' >"$tmp/npmrc"
      volumes+=(--volume "$NODE_EXTRA_CA_CERTS:/run/build-ca.crt:ro" --volume "$tmp/npmrc:/usr/local/etc/npmrc:ro")
    fi
    log "building $IMAGE on $base"
    "${BUILDAH[@]}" build --isolation chroot --pull-never --build-arg "NODE_IMAGE=$base" "${volumes[@]}" \
      ${key:+--label "$LABEL=$key"} --tag "$IMAGE" --file Dockerfile . >&2
    # The image this build replaced, now untagged, is a full copy in vfs storage.
    if [ -n "$previous" ] && [ "$previous" != "$(image_id)" ]; then
      "${BUILDAH[@]}" rmi "$previous" >/dev/null 2>&1 || true
    fi
    log "built $IMAGE in $(($(date +%s) - start))s"
  fi
fi
echo "$IMAGE $("${BUILDAH[@]}" images --format '{{.Size}}' "$IMAGE" | head -n 1)"
