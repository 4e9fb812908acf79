import { execFile } from 'node:child_process';
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CA_FILE, TOKENS, type ControlPlane, type TestRole } from './control-plane.js';
import { KUBECTL } from './kubectl.js';
import { ROOT } from './paths.js';

/** What one `kubectl ngx` run printed, and its exit code. */
export interface NgxOutcome {
  code: number;
  out: string;
  err: string;
}

/** A folder holding `kubectl-ngx`, the built plugin (apps/kubectl-ngx/dist), for PATH. */
export function builtPluginFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'ngx-plugin-bin-'));
  symlinkSync(join(ROOT, 'apps/kubectl-ngx/dist/kubectl-ngx.cjs'), join(folder, 'kubectl-ngx'));
  return folder;
}

/** A kubeconfig whose server is `cp` over TLS, signed in with `role`'s token. */
export function controlPlaneKubeconfig(cp: ControlPlane, role: TestRole): string {
  const file = join(mkdtempSync(join(tmpdir(), 'ngx-cp-kubeconfig-')), 'kubeconfig');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      `clusters: [{name: cp, cluster: {server: "${cp.httpsUrl}", certificate-authority: "${CA_FILE}"}}]`,
      `users: [{name: ${role}, user: {token: "${TOKENS[role]}"}}]`,
      `contexts: [{name: cp, context: {cluster: cp, user: ${role}}}]`,
      'current-context: cp',
      '',
    ].join('\n'),
  );
  return file;
}

/** `kubectl ngx <args>` run by the real kubectl, the plugin found in `pluginFolder`, with `kubeconfig`. */
export async function runNgx(pluginFolder: string, kubeconfig: string, args: string[]): Promise<NgxOutcome> {
  const env = { ...process.env, PATH: `${pluginFolder}:${process.env.PATH}`, KUBECONFIG: kubeconfig };
  try {
    const { stdout, stderr } = await promisify(execFile)(KUBECTL, ['ngx', ...args], { env, timeout: 90_000 });
    return { code: 0, out: stdout.trimEnd(), err: stderr.trimEnd() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof failed.code === 'number' ? failed.code : -1,
      out: (failed.stdout ?? '').trimEnd(),
      err: (failed.stderr ?? '').trimEnd(),
    };
  }
}
