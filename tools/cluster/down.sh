#!/usr/bin/env bash
# Stops every component the local control plane started, by its pid file (etcd last), then any process still
# running one of our binaries against this cluster's files. `--purge` also deletes etcd data and certificates.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# stop NAME=PID...: SIGTERM to all at once, then wait for each (SIGKILL after 10 s).
stop() {
  local entry i
  for entry in "$@"; do kill -TERM "${entry#*=}" 2>/dev/null || true; done
  for entry in "$@"; do
    local name=${entry%%=*} pid=${entry#*=}
    for ((i = 0; i < 100; i++)); do
      alive "$pid" || break
      sleep 0.1
    done
    if alive "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
      log "killed $name (pid $pid) after 10s"
    else
      log "stopped $name (pid $pid)"
    fi
  done
}

# Everything that talks to etcd stops together first; etcd last, so the API server can finish its writes.
clients=()
for name in kwok kube-scheduler kube-controller-manager kube-apiserver; do
  if pid=$(live_pid "$name" 2>/dev/null); then clients+=("$name=$pid"); fi
  rm -f "$(pid_file "$name")"
done
[ ${#clients[@]} -eq 0 ] || stop "${clients[@]}"
if pid=$(live_pid etcd 2>/dev/null); then stop "etcd=$pid"; fi
rm -f "$(pid_file etcd)"

strays=()
for pid in $(stray_pids); do
  log "stray process $pid: $({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null | cut -c1-120)"
  strays+=("stray=$pid")
done
[ ${#strays[@]} -eq 0 ] || stop "${strays[@]}"

if [ "${1:-}" = "--purge" ]; then
  rm -rf "$ETCD_DATA" "$PKI" "$KUBECONFIG_ADMIN" "$LOGS"
  log "purged etcd data, certificates and logs"
fi
