import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  COMPONENTS,
  clusterScript,
  isAlive,
  pidFile,
  readPid,
  runningComponents,
} from './support/cluster-processes.js';
import { ROOT } from './support/paths.js';
import { waitFor } from './support/wait.js';

const SCRIPT_TIMEOUT = 180_000;
const strays: number[] = [];

afterAll(async () => {
  for (const pid of strays) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await clusterScript('up'); // whatever happened above, leave the cluster running for the next test file
});

function expectOneOfEach(): Map<string, number[]> {
  const running = runningComponents();
  for (const component of COMPONENTS) {
    expect(running.get(component), `${component} processes`).toHaveLength(1);
    expect(running.get(component)?.[0]).toBe(readPid(component));
  }
  return running;
}

describe('cluster scripts', () => {
  it(
    'cluster:up on a running cluster starts nothing new',
    async () => {
      await clusterScript('up');
      const before = expectOneOfEach();
      const output = await clusterScript('up');
      expect(output).toMatch(/kwok already running/);
      const after = expectOneOfEach();
      expect([...after.entries()].sort()).toEqual([...before.entries()].sort());
    },
    SCRIPT_TIMEOUT,
  );

  it(
    'cluster:up does not trust a stale pid file left by a killed run, and leaves the unrelated process alone',
    async () => {
      const kwok = readPid('kwok');
      process.kill(kwok, 'SIGKILL');
      await waitFor('kwok to die', () => !isAlive(kwok));
      // The pid in the file now belongs to an unrelated process, as after pid reuse.
      const unrelated = spawn('sleep', ['300'], { stdio: 'ignore' });
      strays.push(unrelated.pid!);
      writeFileSync(pidFile('kwok'), `${unrelated.pid}\n`);

      const output = await clusterScript('up');
      expect(output).toMatch(/removing stale pid file for kwok/);
      expect(isAlive(unrelated.pid!)).toBe(true);
      expect(readPid('kwok')).not.toBe(unrelated.pid);
      expectOneOfEach();
    },
    SCRIPT_TIMEOUT,
  );

  it(
    'cluster:up refuses a malformed numeric setting with a clear error, before touching anything',
    async () => {
      const before = expectOneOfEach();
      for (const [name, value] of [
        ['CLUSTER_NODE_PODS', 'abc'],
        ['CLUSTER_NODES', '0'],
        ['CLUSTER_API_PORT', '64 43'],
        ['CLUSTER_KCM_QPS', '-5'],
        ['CLUSTER_SCHEDULER_BURST', '1e9'],
      ] as const) {
        const run = promisify(execFile)('bash', [join(ROOT, 'tools/cluster/up.sh')], {
          cwd: ROOT,
          env: { ...process.env, [name]: value },
        });
        await expect(run).rejects.toMatchObject({
          code: 1,
          stderr: expect.stringContaining(`error: ${name} must be`),
        });
      }
      const after = expectOneOfEach();
      expect([...after.entries()].sort()).toEqual([...before.entries()].sort());
    },
    SCRIPT_TIMEOUT,
  );

  it(
    'cluster:status reports every component running',
    async () => {
      const output = await clusterScript('status');
      for (const component of COMPONENTS) expect(output).toMatch(new RegExp(`${component}\\s+running`));
      expect(output).toMatch(/kwok-node-2\s+Ready/);
    },
    SCRIPT_TIMEOUT,
  );

  it(
    'cluster:down leaves no component process behind, and cluster:up brings it all back',
    async () => {
      await clusterScript('down');
      expect([...runningComponents().keys()]).toEqual([]);

      const started = Date.now();
      await clusterScript('up');
      console.log(`second cluster:up took ${((Date.now() - started) / 1000).toFixed(1)} s`);
      expectOneOfEach();
    },
    SCRIPT_TIMEOUT,
  );
});
