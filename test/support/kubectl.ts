import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLUSTER_DIR, KUBECONFIG_PATH, ROOT } from './paths.js';

/** Runs the cluster's own kubectl as admin; rejects with its stderr on a non-zero exit. */
export async function kubectl(...args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(
    join(CLUSTER_DIR, 'bin/kubectl'),
    ['--kubeconfig', KUBECONFIG_PATH, ...args],
    {
      cwd: ROOT,
    },
  );
  return stdout;
}
