# Shared paths, ports and process helpers for the local control plane scripts. Sourced, not run.
# shellcheck shell=bash disable=SC2034 # the settings below are read by the scripts that source this file
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CLUSTER_DIR="${CLUSTER_DIR:-$ROOT/.cluster}"
BIN="$CLUSTER_DIR/bin"
PKI="$CLUSTER_DIR/pki"
LOGS="$CLUSTER_DIR/logs"
RUN="$CLUSTER_DIR/run"
ETCD_DATA="$CLUSTER_DIR/etcd"
KUBECONFIG_ADMIN="$CLUSTER_DIR/kubeconfig"

ETCD_PORT="${CLUSTER_ETCD_PORT:-23790}"
ETCD_PEER_PORT="${CLUSTER_ETCD_PEER_PORT:-23800}"
API_PORT="${CLUSTER_API_PORT:-6443}"
KCM_PORT="${CLUSTER_KCM_PORT:-10257}"
SCHEDULER_PORT="${CLUSTER_SCHEDULER_PORT:-10259}"
KWOK_PORT="${CLUSTER_KWOK_PORT:-10247}"
NODE_COUNT="${CLUSTER_NODES:-3}"
# Pods each kwok node takes (the benchmarks run thousands of pods; kwok pods cost nothing).
NODE_PODS="${CLUSTER_NODE_PODS:-4000}"
# Client-side limits of kube-controller-manager and kube-scheduler toward the API server (their own defaults
# when unset: 20/30 and 50/100). The benchmarks raise them, to compare controllers at equal limits.
KCM_QPS="${CLUSTER_KCM_QPS:-}"
KCM_BURST="${CLUSTER_KCM_BURST:-}"
SCHEDULER_QPS="${CLUSTER_SCHEDULER_QPS:-}"
SCHEDULER_BURST="${CLUSTER_SCHEDULER_BURST:-}"
# Opt-in kube-apiserver audit log (JSON lines) of pod, Nginx, ReplicaSet and Deployment writes, for telling apart
# who sent them (the benchmarks); unset, the API server runs without one. Read when kube-apiserver starts.
AUDIT_LOG="${CLUSTER_AUDIT_LOG:-}"
AUDIT_POLICY="$CLUSTER_DIR/audit-policy.yaml"
# kube-apiserver's audit webhook (batch mode) to the control plane app on its default port, authenticated with
# the client certificate pki.sh makes (CN kube-apiserver-audit): any app started here receives who changed what,
# whichever door it came through. CLUSTER_AUDIT_WEBHOOK=off starts kube-apiserver without it. Read when
# kube-apiserver starts.
AUDIT_WEBHOOK="${CLUSTER_AUDIT_WEBHOOK:-https://127.0.0.1:3000/controlplane/v1/audit/webhook}"
AUDIT_WEBHOOK_CONFIG="$CLUSTER_DIR/audit-webhook.kubeconfig"
# The wait before kube-apiserver's first retry of a failed batch (then ×1.5, five tries in all): 10s, its
# default, keeps events through an app restart of about 80 s; tests shorten it to see events given up quickly.
AUDIT_WEBHOOK_BACKOFF="${CLUSTER_AUDIT_WEBHOOK_BACKOFF:-10s}"
# The OpenID provider kube-apiserver also takes ID tokens from (structured authentication configuration), so one
# identity works against kube-apiserver and the control plane app alike: the tests run a real provider there
# (test/support/oidc-provider.ts), serving the app's certificate (cluster CA, 127.0.0.1). Its audience is the
# app's client ID; usernames and groups get the prefix `oidc:`. kube-apiserver retries discovery until the issuer
# answers; `off` starts it without. Read when kube-apiserver starts.
OIDC_ISSUER="${CLUSTER_OIDC_ISSUER:-https://127.0.0.1:5556}"
OIDC_AUDIENCE="${CLUSTER_OIDC_AUDIENCE:-nginx-control-plane}"
AUTHENTICATION_CONFIG="$CLUSTER_DIR/authentication-config.yaml"

# Start order; stop order is the reverse.
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok)
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl kwok)

log() { printf '[cluster] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

# Numeric settings are checked before anything starts: a typo must not leave a half-started cluster.
check_settings() {
  local pattern=$1 expected=$2 setting variable
  shift 2
  for setting in "$@"; do
    variable=${setting##*=}
    [[ "${!variable}" =~ $pattern ]] || die "${setting%%=*} must be $expected, not '${!variable}'"
  done
}
check_settings '^[1-9][0-9]{0,5}$' 'a positive whole number' CLUSTER_ETCD_PORT=ETCD_PORT \
  CLUSTER_ETCD_PEER_PORT=ETCD_PEER_PORT CLUSTER_API_PORT=API_PORT CLUSTER_KCM_PORT=KCM_PORT \
  CLUSTER_SCHEDULER_PORT=SCHEDULER_PORT CLUSTER_KWOK_PORT=KWOK_PORT CLUSTER_NODES=NODE_COUNT \
  CLUSTER_NODE_PODS=NODE_PODS
check_settings '^([1-9][0-9]*(\.[0-9]+)?)?$' 'a positive number or unset' CLUSTER_KCM_QPS=KCM_QPS \
  CLUSTER_KCM_BURST=KCM_BURST CLUSTER_SCHEDULER_QPS=SCHEDULER_QPS CLUSTER_SCHEDULER_BURST=SCHEDULER_BURST

pid_file() { echo "$RUN/$1.pid"; }

# The audit policy of kube-apiserver's audit backends (the webhook and CLUSTER_AUDIT_LOG share it): the one
# deploy/audit documents for every cluster (Nginx writes with their bodies, pod writes without), and with
# CLUSTER_AUDIT_LOG also the writes the benchmarks tell apart (pod status, ReplicaSets, Deployments).
audit_policy() {
  # deploy/audit/audit-policy.yaml without its comments and closing catch-all, which comes last here.
  sed -e '/^#/d' -e '/- level: None/d' "$ROOT/deploy/audit/audit-policy.yaml"
  [ -z "$AUDIT_LOG" ] || cat <<'POLICY'
  - level: Metadata
    verbs: [create, update, patch, delete, deletecollection]
    resources:
      - group: ""
        resources: [pods/status]
      - group: apps
        resources: [replicasets, replicasets/status, deployments]
POLICY
  echo '  - level: None'
}

# The kubeconfig kube-apiserver's audit webhook posts with: the app's URL, the cluster CA (which signs the app's
# serving certificate) and the webhook's client certificate.
audit_webhook_config() {
  cat <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: control-plane
  cluster:
    server: $AUDIT_WEBHOOK
    certificate-authority: $PKI/ca.crt
users:
- name: kube-apiserver-audit
  user:
    client-certificate: $PKI/audit-webhook.crt
    client-key: $PKI/audit-webhook.key
contexts:
- name: webhook
  context:
    cluster: control-plane
    user: kube-apiserver-audit
current-context: webhook
KUBECONFIG
}

# kube-apiserver's AuthenticationConfiguration: ID tokens of OIDC_ISSUER for OIDC_AUDIENCE (client certificates
# and ServiceAccount tokens are authenticated as before).
authentication_config() {
  cat <<CONFIG
apiVersion: apiserver.config.k8s.io/v1
kind: AuthenticationConfiguration
jwt:
- issuer:
    url: $OIDC_ISSUER
    audiences: [$OIDC_AUDIENCE]
    certificateAuthority: |
$(sed 's/^/      /' "$PKI/ca.crt")
  claimMappings:
    username: {claim: sub, prefix: "oidc:"}
    groups: {claim: groups, prefix: "oidc:"}
CONFIG
}

# A pid file is trusted only while its process is alive and is running our own binary for that component:
# a pid left by a killed run may since have been reused by an unrelated process.
live_pid() {
  local name=$1 file pid cmd
  file=$(pid_file "$name")
  [ -f "$file" ] || return 1
  pid=$(tr -dc '0-9' <"$file")
  if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ]; then
    # Just after start the process may still be `setsid` about to exec our binary, and while a process execs
    # its cmdline reads empty for a moment: a live process gets a second look for up to a second before its
    # pid file is called stale.
    for _ in {1..20}; do
      cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null || true)
      if [[ "$cmd" == "$BIN/$name "* || "$cmd" == "setsid $BIN/$name "* ]]; then
        echo "$pid"
        return 0
      fi
      alive "$pid" || break
      sleep 0.05
    done
  fi
  log "removing stale pid file for $name (pid ${pid:-none} is not our $name)"
  rm -f "$file"
  return 1
}

# Pids of any process still running one of our binaries with this cluster's files, pid file or not.
stray_pids() {
  local dir pid cmd
  for dir in /proc/[0-9]*; do
    pid=${dir#/proc/}
    cmd=$({ tr '\0' ' ' <"/proc/$pid/cmdline"; } 2>/dev/null || true)
    case "$cmd" in
      "$BIN/"*"$CLUSTER_DIR"*) echo "$pid" ;;
    esac
  done
}

# True while the process runs. A zombie (exited, not yet reaped by its new parent) counts as gone: our
# components are detached from the script that started them, so their exit is reaped by init, sometimes late.
alive() {
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

kubectl_admin() { "$BIN/kubectl" --kubeconfig "$KUBECONFIG_ADMIN" "$@"; }

api_ready() {
  curl -sf --max-time 2 --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    "https://127.0.0.1:$API_PORT/readyz" >/dev/null 2>&1
}
