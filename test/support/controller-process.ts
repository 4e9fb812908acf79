import { spawn } from 'node:child_process';
import { hostname } from 'node:os';
import { API_MAIN, KUBECONFIG_PATH, ROOT } from './paths.js';
import { waitFor } from './wait.js';

/** How a controller process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ControllerReadiness {
  ready: boolean;
  checks: { controller: { ok: boolean; detail: string; leader: boolean } };
}

/**
 * The built API (apps/api/dist/main.js) run as a controller, with what `startApi` hides: its pid, the Lease
 * identity it campaigns with, how it exited, and a SIGTERM that reports how long the graceful stop took.
 */
export interface ControllerProcess {
  url: string;
  pid: number;
  /** The holderIdentity it writes into the Lease (`${hostname()}-${pid}`, see NginxControllerService). */
  identity: string;
  output: () => string;
  /** How it exited, or undefined while it runs. */
  exited: () => ProcessExit | undefined;
  readiness: () => Promise<ControllerReadiness>;
  /** The sum of a Prometheus metric's series (all label values) from its /metrics. */
  metric: (name: string) => Promise<number>;
  /** Sends SIGTERM and resolves once it has exited, with how long that took; SIGKILLs it after `graceMs`. */
  terminate: (graceMs?: number) => Promise<ProcessExit & { ms: number; killed: boolean }>;
  /** SIGKILL, for cleanup; resolves once it is gone. */
  kill: () => Promise<void>;
}

const LISTENING = /listening on (http:\/\/\S+)/;

/** Starts the API with the controller (leader election on unless `env` says otherwise) and waits until it listens. */
export async function startController(
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<ControllerProcess> {
  const child = spawn(process.execPath, [API_MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      KUBECONFIG: KUBECONFIG_PATH,
      NO_COLOR: '1',
      WEB_MODE: 'off',
      DATABASE_URL: 'file::memory:',
      // Tests poll readiness and metrics often, without a token: not what the request budgets are about.
      RATE_LIMIT_RPS: '1000',
      ANON_RATE_LIMIT_RPS: '1000',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exit: ProcessExit | undefined;
  const exited = new Promise<ProcessExit>((resolve) =>
    child.once('exit', (code, signal) => resolve((exit = { code, signal }))),
  );

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`API did not listen within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.stdout.on('data', () => {
      const match = LISTENING.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`API exited (${code ?? signal}) before listening:\n${output}`));
    });
  });

  const pid = child.pid!;
  return {
    url,
    pid,
    identity: `${hostname()}-${pid}`,
    output: () => output,
    exited: () => exit,
    readiness: async () => (await (await fetch(`${url}/readyz`)).json()) as ControllerReadiness,
    metric: async (name) => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return text
        .split('\n')
        .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
        .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
    },
    terminate: async (graceMs = 10_000) => {
      const started = performance.now();
      if (exit) return { ...exit, ms: 0, killed: false };
      let killed = false;
      const timer = setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, graceMs);
      child.kill('SIGTERM');
      const result = await exited;
      clearTimeout(timer);
      return { ...result, ms: Math.round(performance.now() - started), killed };
    },
    kill: async () => {
      if (exit) return;
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Waits until one of two controllers leads and the other is a synced standby; resolves with [leader, standby]. */
export function leaderAndStandby(
  a: ControllerProcess,
  b: ControllerProcess,
): Promise<[ControllerProcess, ControllerProcess]> {
  return waitFor(
    'one leader and one synced standby',
    async () => {
      const [ra, rb] = await Promise.all([a.readiness(), b.readiness()]);
      if (!ra.checks.controller.ok || !rb.checks.controller.ok) return false;
      if (ra.checks.controller.leader === rb.checks.controller.leader) return false;
      return ra.checks.controller.leader ? ([a, b] as [ControllerProcess, ControllerProcess]) : [b, a];
    },
    { timeoutMs: 40_000, intervalMs: 100 },
  );
}
