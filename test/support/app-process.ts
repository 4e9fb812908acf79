import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { API_MAIN, KUBECONFIG_PATH, ROOT } from './paths.js';
import { waitFor } from './wait.js';

/** How the app's process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface AppReadiness {
  ready: boolean;
  checks: { controller: { ok: boolean; detail: string; leader: boolean } };
}

/** The built app (apps/api/dist/main.js) running in a child process of the test. */
export interface AppProcess {
  url: string;
  pid: number;
  /** The holderIdentity its controller writes into the Lease (`${hostname()}-${pid}`, see NginxControllerService). */
  identity: string;
  /** Everything it printed so far (stdout and stderr). */
  output: () => string;
  /** How it exited, or undefined while it runs. */
  exited: () => ProcessExit | undefined;
  readiness: () => Promise<AppReadiness>;
  /** Sends SIGTERM and resolves once it has exited, with how long that took; SIGKILLs it after `graceMs`. */
  terminate: (graceMs?: number) => Promise<ProcessExit & { ms: number; killed: boolean }>;
  /** `terminate()` without the report: SIGTERM, SIGKILL after 10 s; resolves once it is gone. */
  stop: () => Promise<void>;
  /** SIGKILL, as a crash would (and for cleanup); resolves once it is gone. */
  kill: () => Promise<void>;
}

export interface AppOptions {
  /** How long it may take to print its listening line (startApp) or to exit (runAppToExit). */
  timeoutMs?: number;
}

/**
 * What a test that does not look at the web UI or the audit trail runs the app with: no web UI and an in-memory
 * SQLite audit database (the app creates its tables at start, so the audit keeps working unseen).
 */
export const HEADLESS = { WEB_MODE: 'off', DATABASE_URL: 'file::memory:' } as const;

/** The line main.ts logs once it listens, in text or JSON logs (the URL ends at white space or a quote). */
const LISTENING = /listening on (http:\/\/[^\s"]+)/;

/** Spawns the built app on a free port with `env` over the test defaults, collecting everything it prints. */
function spawnApp(env: Record<string, string>) {
  const child = spawn(process.execPath, [API_MAIN], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      KUBECONFIG: KUBECONFIG_PATH,
      NO_COLOR: '1',
      // Tests poll readiness and metrics often, without a token: not what the request budgets are about.
      RATE_LIMIT_RPS: '1000',
      ANON_RATE_LIMIT_RPS: '1000',
      // Off unless a test asks: a registered webhook would refuse the bad configs other tests write straight to
      // kube-apiserver to see the controller flag them (test/admission-webhook.test.ts turns it on).
      ADMISSION_WEBHOOK: 'false',
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
  return { child, output: () => output, exit: () => exit, exited };
}

/**
 * Starts the built app with `env` (the controller, the web UI and the audit database as the app defaults them,
 * unless `env` says otherwise: see HEADLESS) and resolves once it listens. SIGKILLs it when it does not listen
 * within `options.timeoutMs`.
 */
export async function startApp(
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<AppProcess> {
  const { timeoutMs = 60_000 } = options;
  const { child, output, exit, exited } = spawnApp(env);

  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the app did not listen within ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    child.stdout.on('data', () => {
      const match = LISTENING.exec(output());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`the app exited (${code ?? signal}) before listening:\n${output()}`));
    });
  });

  const terminate = async (graceMs = 10_000) => {
    const started = performance.now();
    const before = exit();
    if (before) return { ...before, ms: 0, killed: false };
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, graceMs);
    child.kill('SIGTERM');
    const result = await exited;
    clearTimeout(timer);
    return { ...result, ms: Math.round(performance.now() - started), killed };
  };
  const pid = child.pid!;
  return {
    url,
    pid,
    identity: `${hostname()}-${pid}`,
    output,
    exited: exit,
    readiness: async () => (await (await fetch(`${url}/readyz`)).json()) as AppReadiness,
    terminate,
    stop: async () => void (await terminate()),
    kill: () => killed(child, exit, exited),
  };
}

async function killed(
  child: ChildProcess,
  exit: () => ProcessExit | undefined,
  exited: Promise<ProcessExit>,
) {
  if (exit()) return;
  child.kill('SIGKILL');
  await exited;
}

/** Runs the built app expecting it to refuse to start; resolves with its exit code and output. */
export async function runAppToExit(
  env: Record<string, string>,
  options: AppOptions = {},
): Promise<{ code: number | null; output: string }> {
  const { timeoutMs = 30_000 } = options;
  const { child, output, exited } = spawnApp(env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const { code, signal } = await exited;
  clearTimeout(timer);
  if (signal === 'SIGKILL')
    throw new Error(`the app was expected to exit but still ran after ${timeoutMs} ms:\n${output()}`);
  return { code, output: output() };
}

/**
 * The value of one Prometheus metric from the app's /metrics: the sum of its samples over every label set (one
 * sample for a metric without labels); 0 when the app declares it (`# TYPE`) but has no sample yet (a labelled
 * counter before its first increment). Throws when the app does not export it at all, so that a misspelt or
 * renamed metric fails the test (or keeps a waitFor waiting, naming the metric) rather than reading as 0.
 * Histogram series (`_count`, `_sum`, `_bucket`) count as declared by their histogram.
 */
export async function metric(app: { url: string }, name: string): Promise<number> {
  const text = await (await fetch(`${app.url}/metrics`)).text();
  const family = name.replace(/_(count|sum|bucket)$/, '');
  const lines = text.split('\n');
  if (!lines.some((line) => line.startsWith(`# TYPE ${name} `) || line.startsWith(`# TYPE ${family} `)))
    throw new Error(`${app.url}/metrics does not export ${name}`);
  return lines
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Waits until one of two controllers leads and the other is a synced standby; resolves with [leader, standby]. */
export function leaderAndStandby(a: AppProcess, b: AppProcess): Promise<[AppProcess, AppProcess]> {
  return waitFor(
    'one leader and one synced standby',
    async () => {
      const [ra, rb] = await Promise.all([a.readiness(), b.readiness()]);
      if (!ra.checks.controller.ok || !rb.checks.controller.ok) return false;
      if (ra.checks.controller.leader === rb.checks.controller.leader) return false;
      return ra.checks.controller.leader ? ([a, b] as [AppProcess, AppProcess]) : [b, a];
    },
    { timeoutMs: 40_000, intervalMs: 100 },
  );
}

/**
 * Ends `leader` (SIGTERM) and waits until `standby` leads with synced caches and has reconciled at least once
 * since (counted by nginx_reconciles_total: the namespace it watches should hold the Nginx the caller means).
 */
export async function handOver(leader: AppProcess, standby: AppProcess): Promise<void> {
  const reconcilesBefore = await metric(standby, 'nginx_reconciles_total');
  await leader.terminate();
  await waitFor(
    'the standby to lead with synced caches',
    async () => {
      const readiness = await standby.readiness();
      return readiness.checks.controller.ok && readiness.checks.controller.leader === true;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  await waitFor(
    'a reconcile of the Nginx by the new leader',
    async () => (await metric(standby, 'nginx_reconciles_total')) > reconcilesBefore,
    { timeoutMs: 30_000, intervalMs: 100 },
  );
}
