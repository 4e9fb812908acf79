import { createHash } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import type { KubeClient } from '../../libs/kube-runtime/src/index.js';
import { readPid } from '../../test/support/cluster-processes.js';
import { createNamedNamespace } from '../../test/support/operations.js';
import { ROOT } from '../../test/support/paths.js';
import { sleep, waitFor } from '../../test/support/wait.js';
import { requestCounts } from '../../test/support/apiserver-metrics.js';

// The cluster chores of a bench run: a namespace per run, gone before the next; a quiet API server before
// measuring; kube-controller-manager and kube-scheduler restarted with client limits (cluster-components.ts).

export interface ClientLimits {
  qps: number;
  burst: number;
}

/** Creates a namespace for one run and waits for its default service account (pods are refused before it). */
export const createNamespace = (client: KubeClient, name: string): Promise<string> =>
  createNamedNamespace(client, name, { 'mycompany.com/bench': 'rollout' });

/** Deletes a namespace and waits until it is gone, so its clean-up does not land in the next run's figures. */
export async function deleteNamespace(client: KubeClient, name: string): Promise<void> {
  await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${name}` }).catch(() => {});
  await waitFor(
    `namespace ${name} to be gone`,
    () =>
      client.request({ path: `/api/v1/namespaces/${name}` }).then(
        () => false,
        () => true,
      ),
    { timeoutMs: 300_000, intervalMs: 250 },
  ).catch(() => {});
}

/**
 * Waits until kube-apiserver serves under `perSecond` requests a second over 3 s (at most 2 minutes), so what
 * the last step left behind (Events, clean-up) is not counted in the next. Resolves with the last rate seen.
 */
export async function quiet(perSecond = 30): Promise<number> {
  const total = async () => [...(await requestCounts()).values()].reduce((a, b) => a + b, 0);
  let rate = Infinity;
  for (let i = 0; i < 40; i++) {
    const before = await total();
    await sleep(3000);
    rate = ((await total()) - before) / 3;
    if (rate < perSecond) break;
  }
  return rate;
}

export { restartComponents } from '../convergence/cluster-components.js';

/** tools/cluster settings for kube-controller-manager's limits; the scheduler high, so it is not what both wait for. */
export const limitsEnv = (limits: ClientLimits) => ({
  CLUSTER_KCM_QPS: String(limits.qps),
  CLUSTER_KCM_BURST: String(limits.burst),
  CLUSTER_SCHEDULER_QPS: '5000',
  CLUSTER_SCHEDULER_BURST: '5000',
});

/** The client limits a cluster component runs with, from its command line ("default" when not given). */
export function componentLimits(component: string): { qps: string; burst: string } {
  const argv = readFileSync(`/proc/${readPid(component)}/cmdline`, 'utf8').split('\0');
  const flag = (name: string) =>
    argv.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3) ?? 'default';
  return { qps: flag('kube-api-qps'), burst: flag('kube-api-burst') };
}

/** Busy and total CPU time of the whole machine so far (/proc/stat, clock ticks). */
function machineTicks(): { busy: number; total: number } {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** Starts measuring how busy the machine is; the function returned says, since then, how many cores were busy. */
export function machineLoad(): () => { busyCores: number; loadAverage1m: number } {
  const before = machineTicks();
  return () => {
    const after = machineTicks();
    const share = (after.busy - before.busy) / Math.max(1, after.total - before.total);
    return { busyCores: Math.round(share * cpus().length * 100) / 100, loadAverage1m: loadavg()[0]! };
  };
}

/** Other test or bench processes running on this machine (their command lines, shortened). */
export function otherTestProcesses(): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmd: string;
    try {
      cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
    } catch {
      continue;
    }
    // Not a search for them (pgrep, grep) nor this bench.
    if (/^(\S*\/)?(pgrep|grep)\s/.test(cmd) || cmd.includes('rollout.bench.ts')) continue;
    if (/vitest(\.mjs)? run|\.bench\.ts/.test(cmd)) found.push(`${entry}: ${cmd.slice(0, 120)}`);
  }
  return found;
}

/** The machine, as the results describe it. */
export function machine() {
  const all = cpus();
  return {
    cpu: all[0]?.model ?? 'unknown',
    cores: all.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
}

/**
 * A fingerprint of the built controller (apps/api/dist/controller/*.js), taken as each run starts the app: others
 * may rebuild the app while the bench runs, and the results should say whether every run ran the same build.
 */
export function controllerBuild(): string {
  const dir = join(ROOT, 'apps/api/dist/controller');
  const hash = createHash('sha256');
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort())
    hash.update(file).update(readFileSync(join(dir, file)));
  return hash.digest('hex').slice(0, 12);
}

/**
 * Waits (at most `timeoutMs`) until no other test or bench process runs, so that what kube-apiserver counts is
 * this bench's; resolves with those still running when it gave up (none when it did not have to).
 */
export async function noOtherTests(timeoutMs = 900_000): Promise<string[]> {
  const deadline = performance.now() + timeoutMs;
  let others = otherTestProcesses();
  if (others.length) console.log(`waiting for other tests to finish: ${others.join('; ')}`);
  while (others.length && performance.now() < deadline) {
    await sleep(5000);
    others = otherTestProcesses();
  }
  return others;
}
