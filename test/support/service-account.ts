import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { kubectl } from './kubectl.js';
import { KUBECONFIG_PATH } from './paths.js';

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: { name: string; context: { cluster: string } }[];
  clusters?: { name: string; cluster: Record<string, unknown> }[];
}

/**
 * Writes a kubeconfig that signs in to the local cluster (the admin kubeconfig's server and CA) as a service
 * account, with a token from `kubectl create token`. Returns the file's path.
 */
export async function serviceAccountKubeconfig(
  namespace: string,
  name: string,
  duration = '1h',
): Promise<string> {
  const token = (await kubectl('create', 'token', name, '-n', namespace, `--duration=${duration}`)).trim();
  const admin = parse(readFileSync(KUBECONFIG_PATH, 'utf8')) as KubeconfigFile;
  const clusterName = admin.contexts?.find((c) => c.name === admin['current-context'])?.context.cluster;
  const cluster = admin.clusters?.find((c) => c.name === clusterName)?.cluster;
  if (!cluster) throw new Error(`${KUBECONFIG_PATH} has no cluster for its current context`);
  const user = `${namespace}:${name}`;
  const file = join(mkdtempSync(join(tmpdir(), 'ngx-sa-')), 'kubeconfig');
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'local', cluster }],
      users: [{ name: user, user: { token } }],
      contexts: [{ name: user, context: { cluster: 'local', user } }],
      'current-context': user,
    }),
    { mode: 0o600 },
  );
  return file;
}

/**
 * `kubectl auth can-i` as admin impersonating `user`: true for "yes", false for "no" (which kubectl reports with
 * exit code 1); anything else rejects.
 */
export async function canI(user: string, ...args: string[]): Promise<boolean> {
  try {
    return (await kubectl('auth', 'can-i', `--as=${user}`, ...args)).trim() === 'yes';
  } catch (error) {
    const { code, stdout } = error as { code?: number; stdout?: string };
    if (code === 1 && stdout?.trim().startsWith('no')) return false;
    throw error;
  }
}
