import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

/** What tools/cluster makes for this app in the repository's .cluster/ folder, used when nothing else is set. */
export const LOCAL_CLUSTER = {
  kubeconfig: '.cluster/kubeconfig',
  /** The serving certificate tools/cluster/pki.sh makes for this app, signed by the local cluster's CA. */
  tlsCert: '.cluster/pki/control-plane.crt',
  tlsKey: '.cluster/pki/control-plane.key',
  /** The local cluster's CA, which signs kube-apiserver's audit webhook client certificate. */
  ca: '.cluster/pki/ca.crt',
};

/** The common name of kube-apiserver's audit webhook client certificate in the local cluster. */
export const LOCAL_AUDIT_WEBHOOK_CLIENT = 'kube-apiserver-audit';

/** One of LOCAL_CLUSTER's files under `cwd`, when it exists. */
export function localClusterFile(cwd: string, file: string): string | undefined {
  const path = resolve(cwd, file);
  return existsSync(path) ? path : undefined;
}
