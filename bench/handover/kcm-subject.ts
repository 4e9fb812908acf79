// kube-controller-manager's ReplicaSet controller as a hand-over trial subject (test/support/handover-trials.ts):
// instances of the cluster's own kube-controller-manager binary, with its own flags but leader election on (a Lease
// of their own), each on a port and certificate folder of its own, and one ReplicaSet in a namespace.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { V1Pod, V1ReplicaSet } from '@kubernetes/client-node';
import type { KubeClient } from '../../libs/kube-runtime/src/index.js';
import { isActive } from '../../apps/api/src/controller/pod-plan.js';
import { isAlive, readPid } from '../../test/support/cluster-processes.js';
import type { Contender, HandoverSubject } from '../../test/support/handover-trials.js';
import { sleep } from '../../test/support/wait.js';
import { REPLICA_SET } from '../convergence/workload.js';

export const KCM_LEASE = 'kcm-handover-bench';

export interface KcmOptions {
  lease: { durationSeconds: number; renewDeadlineSeconds: number; retryPeriodSeconds: number };
  /** Its alpha gate ControllerManagerReleaseLeaderElectionLockOnExit: release the Lease on SIGTERM. */
  releaseOnExit: boolean;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

/** The running cluster kube-controller-manager's command line (tools/cluster/up.sh), to start others like it. */
export function clusterKcmCommand(): string[] {
  return readFileSync(`/proc/${readPid('kube-controller-manager')}/cmdline`, 'utf8')
    .split('\0')
    .filter(Boolean);
}

/** Stops the cluster's own kube-controller-manager (its ReplicaSet controller would act too). */
export async function stopClusterKcm(): Promise<void> {
  const pid = readPid('kube-controller-manager');
  process.kill(pid, 'SIGTERM');
  while (isAlive(pid)) await sleep(100);
}

export function kcmSubject(
  client: KubeClient,
  namespace: string,
  name: string,
  command: string[],
  options: KcmOptions,
): HandoverSubject & { close(): Promise<void> } {
  const collection = REPLICA_SET.collection(namespace);
  const running = new Set<{ kill: () => Promise<void> }>();
  const [binary, ...clusterArgs] = command;
  const { lease } = options;
  let marks = 0;
  return {
    name: `ReplicaSet ${namespace}/${name}`,
    namespace,
    workload: name,
    async start(): Promise<Contender> {
      const args = clusterArgs
        .filter((arg) => !/^--(leader-elect|secure-port|cert-dir)=/.test(arg))
        .concat([
          '--leader-elect=true',
          `--leader-elect-lease-duration=${lease.durationSeconds}s`,
          `--leader-elect-renew-deadline=${lease.renewDeadlineSeconds}s`,
          `--leader-elect-retry-period=${lease.retryPeriodSeconds}s`,
          `--leader-elect-resource-name=${KCM_LEASE}`,
          '--leader-elect-resource-namespace=kube-system',
          `--secure-port=${await freePort()}`,
          `--cert-dir=${mkdtempSync(join(tmpdir(), 'kcm-bench-'))}`,
          ...(options.releaseOnExit
            ? ['--feature-gates=ControllerManagerReleaseLeaderElectionLockOnExit=true']
            : []),
        ]);
      const child = spawn(binary!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      let exited = false;
      const exit = new Promise<void>((resolve) =>
        child.once('exit', () => {
          exited = true;
          resolve();
        }),
      );
      const handle = {
        kill: async () => {
          if (!exited) child.kill('SIGKILL');
          await exit;
        },
      };
      running.add(handle);
      void exit.then(() => running.delete(handle));
      return {
        pid: child.pid!,
        leading: async () =>
          !exited && output.includes(`"Successfully acquired lease" lock="kube-system/${KCM_LEASE}"`),
        // A standby runs no controller, so it has no cache to sync: running and campaigning is all there is.
        standingBy: async () =>
          !exited &&
          output.includes(`"Attempting to acquire leader lease..." lock="kube-system/${KCM_LEASE}"`),
        stop: async (stop) => {
          if (!exited) child.kill(stop);
          await exit;
        },
        output: () => output,
      };
    },
    async scale(replicas) {
      await client.request({
        method: 'PATCH',
        path: `${collection}/${name}`,
        contentType: 'application/merge-patch+json',
        body: { spec: { replicas } },
      });
    },
    async converged(replicas) {
      const [rs, pods] = await Promise.all([
        client.request<V1ReplicaSet>({ path: `${collection}/${name}` }),
        client.request<{ items: V1Pod[] }>({
          path: `/api/v1/namespaces/${namespace}/pods`,
          query: { labelSelector: `owner=${name}` },
        }),
      ]);
      const active = pods.items.filter(isActive);
      return (
        active.length === replicas &&
        active.every((p) => p.status?.phase === 'Running') &&
        // Zero counts are left out of a ReplicaSet's status.
        (rs.status?.readyReplicas ?? 0) === replicas &&
        (rs.status?.replicas ?? 0) === replicas &&
        rs.status?.observedGeneration === rs.metadata?.generation
      );
    },
    async mark() {
      await client.request({
        method: 'PATCH',
        path: `${collection}/${name}`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { annotations: { 'handover-trials/mark': String((marks += 1)) } } },
      });
    },
    async close() {
      for (const handle of [...running]) await handle.kill();
    },
  };
}
