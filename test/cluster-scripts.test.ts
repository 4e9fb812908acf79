// Runs alone: stops and starts the cluster's components.
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { AuditEvent } from './support/apiserver-audit-log.js';
import {
  COMPONENTS,
  clusterScript,
  isAlive,
  pidFile,
  readPid,
  stopKubeApiServer,
  runningComponents,
} from './support/cluster-processes.js';
import type { ChangeItem } from '../libs/nginx-api/src/index.js';
import { startControlPlane } from './support/control-plane.js';
import { CLUSTER_DIR, ROOT } from './support/paths.js';
import { runtimeClient } from './support/runtime.js';
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
        ['CLUSTER_AUDIT_LOG', tmpdir()],
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

  it("the audit policy records Nginx writes with their bodies, pod writes, and with CLUSTER_AUDIT_LOG the benchmarks' writes", async () => {
    const policy = async (auditLog: string) => {
      const { stdout } = await promisify(execFile)(
        'bash',
        ['-c', `source ${join(ROOT, 'tools/cluster/lib.sh')} && audit_policy`],
        { cwd: ROOT, env: { ...process.env, CLUSTER_AUDIT_LOG: auditLog } },
      );
      return parse(stdout) as { rules: unknown[] };
    };
    const writes = ['create', 'update', 'patch', 'delete', 'deletecollection'];
    const always = [
      {
        level: 'RequestResponse',
        verbs: writes,
        resources: [{ group: 'mycompany.com', resources: ['nginxes', 'nginxes/status', 'nginxes/scale'] }],
      },
      { level: 'Metadata', verbs: writes, resources: [{ group: '', resources: ['pods', 'pods/eviction'] }] },
    ];
    expect(await policy('')).toEqual({
      apiVersion: 'audit.k8s.io/v1',
      kind: 'Policy',
      omitStages: ['RequestReceived'],
      rules: [...always, { level: 'None' }],
    });
    expect((await policy('/tmp/audit.log')).rules).toEqual([
      ...always,
      {
        level: 'Metadata',
        verbs: writes,
        resources: [
          { group: '', resources: ['pods/status'] },
          { group: 'apps', resources: ['replicasets', 'replicasets/status', 'deployments'] },
        ],
      },
      { level: 'None' },
    ]);
  });

  it(
    'with CLUSTER_AUDIT_LOG, a restarted kube-apiserver logs pod writes with who sent them; without, it logs none',
    async () => {
      const restartApiServer = async (env: Record<string, string>) => {
        await stopKubeApiServer();
        return promisify(execFile)('bash', [join(ROOT, 'tools/cluster/up.sh')], {
          cwd: ROOT,
          env: { ...process.env, ...env },
        });
      };
      const auditLog = join(mkdtempSync(join(tmpdir(), 'cluster-audit-')), 'audit.log');
      const client = runtimeClient({ userAgent: 'cluster-scripts-test' });
      try {
        await restartApiServer({ CLUSTER_AUDIT_LOG: auditLog });
        const name = `audit-probe-${Date.now().toString(36)}`;
        await client.request({
          method: 'POST',
          path: '/api/v1/namespaces/default/pods',
          body: { metadata: { name }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } },
        });
        await client.request({
          method: 'DELETE',
          path: `/api/v1/namespaces/default/pods/${name}`,
          query: { gracePeriodSeconds: 0 },
        });
        const probes = () =>
          readFileSync(auditLog, 'utf8')
            .split('\n')
            .filter((line) => line.includes(name))
            .map((line) => JSON.parse(line) as AuditEvent)
            .filter((event) => event.userAgent === 'cluster-scripts-test');
        await waitFor('the audit events', () => probes().length >= 2);
        expect(
          probes().map((e) => [
            e.stage,
            e.verb,
            e.objectRef?.resource,
            e.responseStatus?.code,
            e.user?.username,
          ]),
        ).toEqual([
          ['ResponseComplete', 'create', 'pods', 201, 'admin'],
          ['ResponseComplete', 'delete', 'pods', 200, 'admin'],
        ]);

        // The app follows that file (KUBE_AUDIT_LOG_FILE) for clusters without the webhook: an Nginx written
        // straight to kube-apiserver becomes a change record of its actor, from the log.
        const app = await startControlPlane({
          AUDIT_WEBHOOK: 'false',
          KUBE_AUDIT_LOG_FILE: auditLog,
          KUBE_AUDIT_LOG_POSITION_FILE: join(mkdtempSync(join(tmpdir(), 'audit-position-')), 'position.json'),
          WATCH_NAMESPACE: 'default',
        });
        try {
          await client.request({
            method: 'POST',
            path: '/apis/mycompany.com/v1/namespaces/default/nginxes',
            body: {
              apiVersion: 'mycompany.com/v1',
              kind: 'Nginx',
              metadata: { name },
              spec: { replicas: 0 },
            },
          });
          await client.request({
            method: 'DELETE',
            path: `/apis/mycompany.com/v1/namespaces/default/nginxes/${name}`,
          });
          const changes = await waitFor('the change records from the audit log', async () => {
            const response = await app.as('admin')(
              `/controlplane/v1/audit/changes?namespace=default&name=${name}`,
            );
            const items = ((await response.json()) as { items: ChangeItem[] }).items;
            return items.length === 2 ? items : undefined;
          });
          expect(changes.map((item) => [item.verb, item.actor, item.door, item.sources])).toEqual([
            ['delete', 'admin', 'kube-apiserver', ['audit-log']],
            ['create', 'admin', 'kube-apiserver', ['audit-log']],
          ]);
        } finally {
          await app.stop();
        }
      } finally {
        await restartApiServer({ CLUSTER_AUDIT_LOG: '' });
        client.close();
      }
      const args = readFileSync(`/proc/${readPid('kube-apiserver')}/cmdline`, 'utf8').split('\0');
      // Without an audit log only the webhook to the app remains.
      expect(args.filter((a) => a.startsWith('--audit-log'))).toEqual([]);
      expect(args).toContain(`--audit-webhook-config-file=${join(CLUSTER_DIR, 'audit-webhook.kubeconfig')}`);
      expectOneOfEach();
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
