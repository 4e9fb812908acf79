#!/usr/bin/env bash
# Generates the cluster's CA, serving and client certificates, service-account keys and kubeconfigs (once).
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

mkdir -p "$PKI"
cd "$PKI" || exit 1

if [ ! -f ca.crt ]; then
  log "generating CA and certificates in $PKI"
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "/CN=nginx-control-plane-ca" \
    -keyout ca.key -out ca.crt 2>/dev/null
fi

# client_cert NAME CN [ORG]
client_cert() {
  local name=$1 cn=$2 org=${3:-}
  [ -f "$name.crt" ] && return 0
  local subj="/CN=$cn"
  [ -n "$org" ] && subj="/O=$org/CN=$cn"
  openssl req -newkey rsa:2048 -nodes -subj "$subj" -keyout "$name.key" -out "$name.csr" 2>/dev/null
  openssl x509 -req -in "$name.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
    -extfile <(printf 'keyUsage=critical,digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n') \
    -out "$name.crt" 2>/dev/null
  rm -f "$name.csr"
}

if [ ! -f apiserver.crt ]; then
  openssl req -newkey rsa:2048 -nodes -subj "/CN=kube-apiserver" -keyout apiserver.key -out apiserver.csr 2>/dev/null
  openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
    -extfile <(printf '%s\n' 'keyUsage=critical,digitalSignature,keyEncipherment' 'extendedKeyUsage=serverAuth' \
      'subjectAltName=IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local') \
    -out apiserver.crt 2>/dev/null
  rm -f apiserver.csr
fi

# The control plane app's own serving certificate (signed by the cluster CA), so kubectl can talk to it over
# TLS on its port: kubectl sends bearer tokens only over TLS.
if [ ! -f control-plane.crt ]; then
  openssl req -newkey rsa:2048 -nodes -subj "/CN=nginx-control-plane" -keyout control-plane.key \
    -out control-plane.csr 2>/dev/null
  openssl x509 -req -in control-plane.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 3650 \
    -extfile <(printf '%s\n' 'keyUsage=critical,digitalSignature,keyEncipherment' 'extendedKeyUsage=serverAuth' \
      'subjectAltName=IP:127.0.0.1,DNS:localhost') \
    -out control-plane.crt 2>/dev/null
  rm -f control-plane.csr
fi

client_cert admin admin system:masters
client_cert kube-controller-manager system:kube-controller-manager
client_cert kube-scheduler system:kube-scheduler
client_cert kwok kwok-controller system:masters
# kube-apiserver's audit webhook client: the control plane app hears audit events only from this name.
client_cert audit-webhook kube-apiserver-audit

if [ ! -f sa.key ]; then
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
fi

# kubeconfig FILE CERT_NAME
kubeconfig() {
  local file=$1 name=$2
  cat >"$file" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority: $PKI/ca.crt
users:
- name: $name
  user:
    client-certificate: $PKI/$name.crt
    client-key: $PKI/$name.key
contexts:
- name: local
  context:
    cluster: local
    user: $name
    namespace: default
current-context: local
KUBECONFIG
}

kubeconfig "$KUBECONFIG_ADMIN" admin
for c in kube-controller-manager kube-scheduler kwok; do kubeconfig "$PKI/$c.kubeconfig" "$c"; done
