import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLUSTER_DIR = join(ROOT, '.cluster');
export const KUBECONFIG_PATH = join(CLUSTER_DIR, 'kubeconfig');
export const API_MAIN = join(ROOT, 'apps/api/dist/main.js');
