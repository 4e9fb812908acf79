#!/usr/bin/env bash
# Prints each component's state, the API server's readiness and the nodes. Exits 0 only when all is running.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ok=0
for name in "${COMPONENTS[@]}"; do
  if pid=$(live_pid "$name" 2>/dev/null); then
    printf '%-24s running (pid %s)\n' "$name" "$pid"
  else
    printf '%-24s stopped\n' "$name"
    ok=1
  fi
done
if [ -f "$PKI/admin.crt" ] && api_ready; then
  printf '%-24s ready at https://127.0.0.1:%s (kubeconfig %s)\n' "api" "$API_PORT" "$KUBECONFIG_ADMIN"
  kubectl_admin get nodes 2>/dev/null || true
else
  printf '%-24s not ready\n' "api"
  ok=1
fi
exit $ok
