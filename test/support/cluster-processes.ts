import { execFile } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLUSTER_DIR, ROOT } from './paths.js';

export const COMPONENTS = [
  'etcd',
  'kube-apiserver',
  'kube-controller-manager',
  'kube-scheduler',
  'kwok',
] as const;
const BIN = join(CLUSTER_DIR, 'bin');

/** Runs one of the npm cluster scripts, with `env` over the test's, and returns what it printed. */
export async function clusterScript(name: 'up' | 'down' | 'status', env: Record<string, string> = {}) {
  const { stdout, stderr } = await promisify(execFile)('bash', [join(ROOT, `tools/cluster/${name}.sh`)], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout + stderr;
}

export function pidFile(component: string): string {
  return join(CLUSTER_DIR, 'run', `${component}.pid`);
}

export function readPid(component: string): number {
  return Number(readFileSync(pidFile(component), 'utf8').trim());
}

/** Every live process started from the cluster's bin folder, by component name. */
export function runningComponents(): Map<string, number[]> {
  const found = new Map<string, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let argv0: string | undefined;
    try {
      argv0 = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')[0];
    } catch {
      continue;
    }
    if (!argv0?.startsWith(`${BIN}/`)) continue;
    const name = argv0.slice(BIN.length + 1);
    found.set(name, [...(found.get(name) ?? []), Number(entry)]);
  }
  return found;
}

/** True while the process runs; a zombie (exited, not yet reaped) counts as gone. */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** How long a stopping kube-apiserver is given before SIGKILL (its own graceful termination takes a few seconds). */
const APISERVER_GRACE_MS = 10_000;
/** What kube-apiserver logs (--v=1) once its requests and watches drained; the audit backend's flush comes next. */
const DRAINED = 'name="InFlightRequestsDrained"';

/**
 * Stops kube-apiserver as a restart does: SIGTERM, so it drains requests and ends watches gracefully, then SIGKILL
 * as soon as its log says they drained (or after APISERVER_GRACE_MS). The step after that is flushing the audit
 * webhook's buffer, retrying each batch with its backoff (about 80 s) while no app listens on the webhook's port,
 * as during most tests: waiting for it would make every restart an outage of ten seconds or more, after which
 * kube-scheduler's and kwok's watches back off for tens of seconds. Resolves once it is gone.
 */
export async function stopKubeApiServer(pid = readPid('kube-apiserver')): Promise<void> {
  const log = join(CLUSTER_DIR, 'logs', 'kube-apiserver.log');
  const from = fileSize(log);
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + APISERVER_GRACE_MS;
  while (isAlive(pid) && Date.now() < deadline && !logSince(log, from).includes(DRAINED))
    await new Promise((resolve) => setTimeout(resolve, 50));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

function logSince(path: string, offset: number): string {
  try {
    return readFileSync(path).subarray(offset).toString('utf8');
  } catch {
    return '';
  }
}

/** The audit log the running kube-apiserver writes (its --audit-log-path), if it writes one. */
export function runningAuditLog(): string | undefined {
  const args = readFileSync(`/proc/${readPid('kube-apiserver')}/cmdline`, 'utf8').split('\0');
  return args.find((arg) => arg.startsWith('--audit-log-path='))?.slice('--audit-log-path='.length);
}
