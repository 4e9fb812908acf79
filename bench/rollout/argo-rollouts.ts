import { execFile, spawn } from 'node:child_process';
import { createWriteStream, existsSync, readdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { kubectl } from '../../test/support/kubectl.js';
import { CLUSTER_DIR, KUBECONFIG_PATH, ROOT } from '../../test/support/paths.js';

// Argo Rollouts' controller as a benchmark peer: built from the Go module pinned in tools/argo-rollouts
// (tools/argo-rollouts/build.sh), its CRDs taken from that module's own manifests/crds, run against the local
// cluster as its admin.

const run = promisify(execFile);

/** Where tools/argo-rollouts/build.sh links the built controller. */
export const ROLLOUTS_CONTROLLER = join(CLUSTER_DIR, 'bin/rollouts-controller');
const MODULE_DIR = join(ROOT, 'tools/argo-rollouts');
const MODULE_PATH = 'github.com/argoproj/argo-rollouts';

/** Whether the controller has been built (a run that must not build it checks this first). */
export const argoRolloutsBuilt = (): boolean => existsSync(ROLLOUTS_CONTROLLER);

/** Builds the controller unless the pinned version is already built (minutes the first time); its path. */
export async function buildArgoRollouts(): Promise<string> {
  const { stdout } = await run('bash', [join(MODULE_DIR, 'build.sh')], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  return stdout.trim();
}

/** The CRD manifests among a manifests/crds listing: its YAML files but kustomization.yaml, sorted. */
export const crdManifests = (files: string[]): string[] =>
  files.filter((file) => /\.ya?ml$/.test(file) && !/^kustomization\.ya?ml$/.test(file)).sort();

/** The pinned module's manifests/crds folder in the Go module cache (downloaded when missing). */
export async function argoRolloutsCrdDir(): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', MODULE_PATH], { cwd: MODULE_DIR });
  const info = JSON.parse(stdout) as { Dir?: string; Error?: string };
  if (!info.Dir) throw new Error(`go mod download ${MODULE_PATH}: ${info.Error ?? 'no Dir'}`);
  return join(info.Dir, 'manifests/crds');
}

/**
 * Applies Argo Rollouts' CRDs (Rollout, AnalysisRun, AnalysisTemplate, ClusterAnalysisTemplate, Experiment) and
 * waits until each is served. Server-side: the Rollout CRD is too large for kubectl's last-applied annotation.
 */
export async function applyArgoRolloutsCrds(): Promise<string[]> {
  const dir = await argoRolloutsCrdDir();
  const files = crdManifests(readdirSync(dir)).map((file) => join(dir, file));
  const applied = await kubectl(
    'apply',
    '--server-side',
    '--force-conflicts',
    '-o',
    'name',
    ...files.flatMap((f) => ['-f', f]),
  );
  const names = applied.split('\n').filter(Boolean);
  await kubectl('wait', '--for=condition=Established', '--timeout=60s', ...names);
  return names;
}

/** The controller's command line: every namespace, no leader election (one instance), ports of our choosing. */
export function controllerArgs(options: {
  kubeconfig: string;
  metricsPort: number;
  healthzPort: number;
  qps?: number;
  burst?: number;
  logLevel?: string;
}): string[] {
  const args = [
    '--kubeconfig',
    options.kubeconfig,
    '--namespaced=false',
    '--leader-elect=false',
    `--metricsPort=${options.metricsPort}`,
    `--healthzPort=${options.healthzPort}`,
    `--loglevel=${options.logLevel ?? 'info'}`,
  ];
  if (options.qps !== undefined) args.push(`--qps=${options.qps}`);
  if (options.burst !== undefined) args.push(`--burst=${options.burst}`);
  return args;
}

/**
 * What the controller logs once its informer caches have synced and its Rollout workers run (its healthz answers
 * before the caches sync, so it is no readiness signal).
 */
export const READY_LINE = 'Started rollout workers';

/**
 * What it logs at --loglevel warn, where READY_LINE (info) is not printed: its start, not a synced cache (a caller
 * then waits for a sync of its own, e.g. its Rollouts' status).
 */
export const WARN_READY_LINE = 'Controller is running.';

/** A port free on this machine now (the controller listens on all interfaces, so the defaults 8080/8090 may collide). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface ArgoRolloutsProcess {
  pid: number;
  metricsPort: number;
  /** Where everything it printed goes. */
  logPath: string;
  /** SIGTERM, SIGKILL after `graceMs`; resolves once it has exited. */
  stop: (graceMs?: number) => Promise<void>;
}

/**
 * Starts the built controller against the local cluster (admin kubeconfig, all namespaces) and resolves once
 * its Rollout workers run; rejects (and kills it) when it exits first or is not ready within `timeoutMs`.
 * The CRDs must be applied first (applyArgoRolloutsCrds), or its informers never sync.
 */
export async function startArgoRollouts(
  options: {
    qps?: number;
    burst?: number;
    logLevel?: string;
    timeoutMs?: number;
    logPath?: string;
    /** What line to wait for: READY_LINE unless the log level hides it. */
    readyLine?: string;
  } = {},
): Promise<ArgoRolloutsProcess> {
  if (!argoRolloutsBuilt())
    throw new Error(`${ROLLOUTS_CONTROLLER} is missing: run npm run peer:argo-rollouts`);
  const [metricsPort, healthzPort] = [await freePort(), await freePort()];
  const logPath = options.logPath ?? join(CLUSTER_DIR, 'logs/rollouts-controller.log');
  const log = createWriteStream(logPath);
  const child = spawn(
    ROLLOUTS_CONTROLLER,
    controllerArgs({ kubeconfig: KUBECONFIG_PATH, metricsPort, healthzPort, ...options }),
    // Its notification settings and leases would be looked up in POD_NAMESPACE (else argo-rollouts).
    { cwd: ROOT, env: { ...process.env, POD_NAMESPACE: 'argo-rollouts' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let tail = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `rollouts-controller not ready within ${options.timeoutMs ?? 120_000} ms (log: ${logPath})`,
        ),
      );
    }, options.timeoutMs ?? 120_000);
    const scan = (chunk: Buffer) => {
      log.write(chunk);
      tail = (tail + chunk.toString()).slice(-4096);
      if (tail.includes(options.readyLine ?? READY_LINE)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', scan);
    child.stderr.on('data', scan);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`rollouts-controller exited before it was ready:\n${tail}`));
    });
  });
  await ready;
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.kill('SIGTERM');
    await exited;
    clearTimeout(timer);
    log.end();
  };
  return { pid: child.pid!, metricsPort, logPath, stop };
}
