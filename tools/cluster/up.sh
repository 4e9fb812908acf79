#!/usr/bin/env bash
# Starts the local control plane (idempotent): etcd, kube-apiserver, kube-controller-manager, kube-scheduler and
# kwok on 127.0.0.1, then registers the kwok nodes and waits until the API server is ready and every node is Ready.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
started_at=$(date +%s)
if [ -n "$AUDIT_LOG" ]; then
  [[ "$AUDIT_LOG" == /* ]] || AUDIT_LOG="$PWD/$AUDIT_LOG"
  [ ! -d "$AUDIT_LOG" ] || die "CLUSTER_AUDIT_LOG must be a file, not the directory '$AUDIT_LOG'"
fi

[[ "$OIDC_ISSUER" == off || "$OIDC_ISSUER" =~ ^https://[^[:space:]/]+(/[^[:space:]]*[^/[:space:]])?$ ]] ||
  die "CLUSTER_OIDC_ISSUER must be an https:// URL without a trailing slash, or off, not '$OIDC_ISSUER'"
[[ "$AUDIT_WEBHOOK" == off || "$AUDIT_WEBHOOK" =~ ^https://[^[:space:]]+$ ]] ||
  die "CLUSTER_AUDIT_WEBHOOK must be an https:// URL or off, not '$AUDIT_WEBHOOK'"

bash "$ROOT/tools/cluster/build.sh"
bash "$ROOT/tools/cluster/pki.sh"
mkdir -p "$LOGS" "$RUN" "$ETCD_DATA"
chmod 700 "$ETCD_DATA"

# args_for COMPONENT: sets the array `args` to the component's command-line arguments.
args_for() {
  case $1 in
    etcd) args=(--name=local --data-dir="$ETCD_DATA" --unsafe-no-fsync \
      --listen-client-urls="http://127.0.0.1:$ETCD_PORT" --advertise-client-urls="http://127.0.0.1:$ETCD_PORT" \
      --listen-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" --initial-advertise-peer-urls="http://127.0.0.1:$ETCD_PEER_PORT" \
      --initial-cluster="local=http://127.0.0.1:$ETCD_PEER_PORT" --listen-metrics-urls="" \
      --quota-backend-bytes=4294967296 --log-level=warn) ;;
    kube-apiserver) args=(--etcd-servers="http://127.0.0.1:$ETCD_PORT" \
      --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
      --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" --client-ca-file="$PKI/ca.crt" \
      --service-account-issuer=https://kubernetes.default.svc.cluster.local \
      --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
      --service-cluster-ip-range=10.0.0.0/24 --authorization-mode="Node,RBAC" --allow-privileged=true \
      --cert-dir="$PKI/apiserver-generated" --endpoint-reconciler-type=none --shutdown-watch-termination-grace-period=2s --profiling=false --v=1)
      [ "$OIDC_ISSUER" = off ] || args+=(--authentication-config="$AUTHENTICATION_CONFIG")
      [ -z "$AUDIT_LOG" ] && [ "$AUDIT_WEBHOOK" = off ] || args+=(--audit-policy-file="$AUDIT_POLICY")
      # Batch mode: events are written by a background worker, not on the request's path; a large buffer so a
      # burst of writes is not dropped; no rotation, so one file holds a whole benchmark or test run (readers keep
      # file offsets): a maxsize of 100 GB, as 0 means the log writer's default of 100 MB.
      [ -z "$AUDIT_LOG" ] || args+=(--audit-log-path="$AUDIT_LOG" \
        --audit-log-format=json --audit-log-mode=batch --audit-log-batch-buffer-size=100000 \
        --audit-log-maxsize=100000 --audit-log-maxbackup=0 --audit-log-maxage=0)
      # Batches within a second (the timeline is live); a buffer that holds a long outage of the app; a batch the
      # app does not take is retried with kube-apiserver's own backoff (10 s, then 1.5 times longer, 5 tries).
      [ "$AUDIT_WEBHOOK" = off ] || args+=(--audit-webhook-config-file="$AUDIT_WEBHOOK_CONFIG" \
        --audit-webhook-mode=batch --audit-webhook-batch-max-wait=1s --audit-webhook-batch-buffer-size=100000 \
        --audit-webhook-initial-backoff="$AUDIT_WEBHOOK_BACKOFF") ;;
    # The HPA controller syncs every 5 s instead of 15 s (each change to an HPA or its target waits up to one
    # period in its queue), so test/nginx-autoscale.test.ts sees it act within seconds.
    kube-controller-manager) args=(--kubeconfig="$PKI/kube-controller-manager.kubeconfig" \
      --authentication-kubeconfig="$PKI/kube-controller-manager.kubeconfig" \
      --authorization-kubeconfig="$PKI/kube-controller-manager.kubeconfig" \
      --bind-address=127.0.0.1 --secure-port="$KCM_PORT" --leader-elect=false --use-service-account-credentials=true \
      --service-account-private-key-file="$PKI/sa.key" --root-ca-file="$PKI/ca.crt" \
      --cluster-signing-cert-file="$PKI/ca.crt" --cluster-signing-key-file="$PKI/ca.key" \
      --cert-dir="$PKI/kcm-generated" --profiling=false --v=1 \
      --horizontal-pod-autoscaler-sync-period=5s \
      ${KCM_QPS:+"--kube-api-qps=$KCM_QPS"} ${KCM_BURST:+"--kube-api-burst=$KCM_BURST"}) ;;
    kube-scheduler) args=(--kubeconfig="$PKI/kube-scheduler.kubeconfig" \
      --authentication-kubeconfig="$PKI/kube-scheduler.kubeconfig" \
      --authorization-kubeconfig="$PKI/kube-scheduler.kubeconfig" \
      --bind-address=127.0.0.1 --secure-port="$SCHEDULER_PORT" --leader-elect=false --profiling=false --v=1 \
      ${SCHEDULER_QPS:+"--kube-api-qps=$SCHEDULER_QPS"} ${SCHEDULER_BURST:+"--kube-api-burst=$SCHEDULER_BURST"}) ;;
    kwok) args=(--kubeconfig="$PKI/kwok.kubeconfig" --config="$CLUSTER_DIR/kwok-stages.yaml" \
      --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
      --node-lease-duration-seconds=40 --cidr=10.244.0.0/16 --node-ip=127.0.0.1 \
      --server-address="127.0.0.1:$KWOK_PORT") ;;
    *) die "unknown component $1" ;;
  esac
}

# audit_note PID: the audit log is set when kube-apiserver starts; says so when CLUSTER_AUDIT_LOG asks for one the
# running kube-apiserver does not write.
audit_note() {
  local running
  [ -n "$AUDIT_LOG" ] || return 0
  running=$({ tr '\0' '\n' <"/proc/$1/cmdline"; } 2>/dev/null | sed -n 's/^--audit-log-path=//p')
  [ "$running" = "$AUDIT_LOG" ] ||
    log "note: kube-apiserver runs with audit log '${running:-none}', not CLUSTER_AUDIT_LOG: stop it first for that to apply"
}

start() {
  local name=$1 pid args
  if pid=$(live_pid "$name"); then
    log "$name already running (pid $pid)"
    [ "$name" != kube-apiserver ] || audit_note "$pid"
    return 0
  fi
  if [ "$name" = kube-apiserver ]; then
    audit_policy >"$AUDIT_POLICY"
    if [ "$OIDC_ISSUER" != off ]; then
      authentication_config >"$AUTHENTICATION_CONFIG"
      log "kube-apiserver takes ID tokens of $OIDC_ISSUER (audience $OIDC_AUDIENCE)"
    fi
    if [ -n "$AUDIT_LOG" ]; then
      mkdir -p "$(dirname "$AUDIT_LOG")"
      log "kube-apiserver audit log: $AUDIT_LOG (policy $AUDIT_POLICY)"
    fi
    if [ "$AUDIT_WEBHOOK" != off ]; then
      audit_webhook_config >"$AUDIT_WEBHOOK_CONFIG"
      log "kube-apiserver audit webhook: $AUDIT_WEBHOOK"
    fi
  fi
  args_for "$name"
  setsid "$BIN/$name" "${args[@]}" >>"$LOGS/$name.log" 2>&1 </dev/null &
  pid=$!
  # Until it has exec'd setsid the child is still a copy of this script, which live_pid would take for a stale
  # pid: wait (five seconds at most) until it runs our binary.
  for _ in {1..250}; do
    [[ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)" == *"$BIN/$name "* ]] && break
    sleep 0.02
  done
  echo "$pid" >"$(pid_file "$name")"
  log "started $name (pid $pid)"
}

# wait_for DESCRIPTION SECONDS COMPONENT COMMAND...: fails early, with the log tail, if the component dies.
wait_for() {
  local what=$1 seconds=$2 component=$3
  shift 3
  local deadline=$(($(date +%s) + seconds))
  local pid
  pid=$(tr -dc '0-9' <"$(pid_file "$component")" 2>/dev/null || true)
  until "$@"; do
    # The process this script just started, by its pid: a check of its command line could misread a process
    # caught mid-exec as gone.
    if [ -z "$pid" ] || ! alive "$pid"; then
      tail -n 30 "$LOGS/$component.log" >&2 || true
      die "$component (pid ${pid:-unknown}) exited while waiting for $what (log: $LOGS/$component.log)"
    fi
    [ "$(date +%s)" -lt "$deadline" ] || { tail -n 30 "$LOGS/$component.log" >&2; die "timed out waiting for $what"; }
    sleep 0.3
  done
}

etcd_healthy() { curl -sf --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"'; }

start etcd
wait_for "etcd" 60 etcd etcd_healthy
start kube-apiserver
wait_for "the API server to be ready" 120 kube-apiserver api_ready

"$BIN/kwok" default-stages >"$CLUSTER_DIR/kwok-stages.yaml"
start kube-controller-manager
start kube-scheduler
if ! live_pid kwok >/dev/null; then
  # A new kwok has a new identity and would wait for the node leases of the one before it to expire (40 s) before
  # running any pod: those leases belong to a process that is gone, so drop them.
  stale_leases=()
  for ((i = 0; i < NODE_COUNT; i++)); do stale_leases+=("kwok-node-$i"); done
  kubectl_admin delete lease -n kube-node-lease --ignore-not-found "${stale_leases[@]}" >/dev/null
fi
start kwok

nodes_manifest() {
  local i
  for ((i = 0; i < NODE_COUNT; i++)); do
    cat <<NODE
---
apiVersion: v1
kind: Node
metadata:
  name: kwok-node-$i
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    type: kwok
    kubernetes.io/arch: amd64
    kubernetes.io/os: linux
    kubernetes.io/hostname: kwok-node-$i
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "$NODE_PODS"}
  capacity: {cpu: "32", memory: 256Gi, pods: "$NODE_PODS"}
NODE
  done
}
existing=$(kubectl_admin get nodes -l type=kwok -o name 2>/dev/null | wc -l)
if [ "$existing" -lt "$NODE_COUNT" ]; then
  nodes_manifest | kubectl_admin apply -f - >/dev/null
fi
# Nodes registered by an older version of this script may hold fewer pods: bring their capacity up to date.
kubectl_admin get nodes -l type=kwok -o jsonpath='{range .items[*]}{.metadata.name} {.status.capacity.pods}{"\n"}{end}' |
  while read -r node pods; do
    [ "$pods" = "$NODE_PODS" ] && continue
    kubectl_admin patch node "$node" --subresource=status --type=merge \
      -p "{\"status\":{\"capacity\":{\"pods\":\"$NODE_PODS\"},\"allocatable\":{\"pods\":\"$NODE_PODS\"}}}" >/dev/null
  done

nodes_ready() {
  [ "$(kubectl_admin get nodes -l type=kwok -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null | grep -c True)" -ge "$NODE_COUNT" ]
}
wait_for "$NODE_COUNT kwok nodes to be Ready" 90 kwok nodes_ready
# Pods can only be admitted once the service-account controller has created the namespace's default account.
default_sa() { kubectl_admin get serviceaccount default -n default -o name >/dev/null 2>&1; }
wait_for "the default service account" 60 kube-controller-manager default_sa

# Gateway API's standard CRDs, as a cluster with a Gateway implementation has them (canaries shift traffic through
# an HTTPRoute). Server-side: HTTPRoute's CRD is too large for client-side apply's last-applied annotation.
gateway_crds=$(bash "$ROOT/tools/gateway-api/crds.sh")
kubectl_admin apply --server-side --force-conflicts --field-manager=nginx-control-plane-setup -f "$gateway_crds" >/dev/null
kubectl_admin wait --for=condition=Established --timeout=60s crd/httproutes.gateway.networking.k8s.io \
  crd/referencegrants.gateway.networking.k8s.io crd/gateways.gateway.networking.k8s.io >/dev/null

log "ready in $(($(date +%s) - started_at))s: API https://127.0.0.1:$API_PORT, kubeconfig $KUBECONFIG_ADMIN"
