#!/usr/bin/env bash
# The official clients the conformance tests run (test/client-conformance.test.ts), fetched from their own
# registries and cached: client-go's checks built with Go (module and build caches make a second run take
# seconds), the Python `kubernetes` package in a virtualenv (pip's cache). Idempotent; prints nothing when done.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=.data/conformance
mkdir -p "$out"
log() { printf '[conformance] %s\n' "$*" >&2; }

(cd test/conformance/client-go && go build -o "../../../$out/client-go-checks" .)

venv=$out/python
requirements=test/conformance/python/requirements.txt
if ! cmp -s "$requirements" "$venv/requirements.txt" 2>/dev/null; then
  log "installing the Python kubernetes client ($(cat "$requirements"))"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi
