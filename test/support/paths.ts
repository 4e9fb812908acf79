import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLUSTER_DIR = join(ROOT, '.cluster');
export const KUBECONFIG_PATH = join(CLUSTER_DIR, 'kubeconfig');
export const API_MAIN = join(ROOT, 'apps/api/dist/main.js');
/** The local cluster's kube-apiserver (tools/cluster/lib.sh: CLUSTER_API_PORT, 6443 unless told otherwise). */
export const API_SERVER = `https://127.0.0.1:${process.env.CLUSTER_API_PORT ?? '6443'}`;
