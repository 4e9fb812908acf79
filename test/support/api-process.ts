import { spawn, type ChildProcess } from 'node:child_process';
import { API_MAIN, KUBECONFIG_PATH, ROOT } from './paths.js';

export interface ApiProcess {
  url: string;
  output: () => string;
  stop: () => Promise<void>;
  /** Kills the process with SIGKILL, as a crash would, and resolves once it is gone. */
  crash: () => Promise<void>;
}

const LISTENING = /listening on (http:\/\/[^\s"]+)/;

/** Spawns the built API (apps/api/dist/main.js) on a free port, collecting everything it prints. */
function spawnApi(env: Record<string, string>): { child: ChildProcess; output: () => string } {
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
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return { child, output: () => output };
}

/** Starts the API and resolves with its URL once it listens. */
export async function startApi(env: Record<string, string> = {}, timeoutMs = 60_000): Promise<ApiProcess> {
  const { child, output } = spawnApi(env);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`API did not listen within ${timeoutMs} ms:\n${output()}`)),
      timeoutMs,
    );
    child.stdout?.on('data', () => {
      const match = LISTENING.exec(output());
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`API exited with ${code} before listening:\n${output()}`));
    });
  });
  const crash = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  return { url, output, stop: () => stop(child), crash };
}

/** Runs the API expecting it to refuse to start; resolves with its exit code and output. */
export function runApiToExit(env: Record<string, string>, timeoutMs = 30_000) {
  const { child, output } = spawnApi(env);
  return new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`API was expected to exit but still ran after ${timeoutMs} ms:\n${output()}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output: output() });
    });
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
  });
}
