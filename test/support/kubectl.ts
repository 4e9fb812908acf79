import { execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLUSTER_DIR, KUBECONFIG_PATH, ROOT } from './paths.js';

/** The local cluster's own kubectl binary. */
export const KUBECTL = join(CLUSTER_DIR, 'bin/kubectl');

/**
 * Runs the cluster's kubectl with exactly `args` (no kubeconfig added) and resolves with its stdout; rejects on a
 * non-zero exit (the error carries its code, stdout and stderr).
 */
export async function runKubectl(args: string[], options: { env?: NodeJS.ProcessEnv } = {}): Promise<string> {
  const { stdout } = await promisify(execFile)(KUBECTL, args, { cwd: ROOT, ...options });
  return stdout;
}

/** Runs the cluster's kubectl as admin. */
export const kubectl = (...args: string[]) => runKubectl(['--kubeconfig', KUBECONFIG_PATH, ...args]);

/** Runs the cluster's kubectl with another kubeconfig (e.g. a service account's). */
export const kubectlWith = (kubeconfig: string, ...args: string[]) =>
  runKubectl(['--kubeconfig', kubeconfig, ...args]);

/** `kubectl apply -f -` of one manifest (JSON or YAML) in `namespace`, as the cluster admin. */
export async function kubectlApply(manifest: string, namespace: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn(KUBECTL, ['--kubeconfig', KUBECONFIG_PATH, 'apply', '-n', namespace, '-f', '-'], {
      cwd: ROOT,
    });
    let stderr = '';
    child.stdout.resume(); // a large apply blocks once its unread output fills the pipe
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`kubectl apply failed: ${stderr}`)),
    );
    child.stdin.end(manifest);
  });
}

/** Applies the Nginx CRD from deploy/crd and waits until the API server serves it. */
export async function applyNginxCrd(): Promise<void> {
  await kubectl('apply', '-f', join(ROOT, 'deploy/crd/nginxes.mycompany.com.yaml'));
  await kubectl('wait', '--for=condition=Established', 'crd/nginxes.mycompany.com', '--timeout=30s');
}
