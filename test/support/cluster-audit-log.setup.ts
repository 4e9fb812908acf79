import { truncateSync } from 'node:fs';
import { join } from 'node:path';
import { isAlive, readPid, runningAuditLog } from './cluster-processes.js';
import { podsRunAgain } from './apiserver-audit-log.js';
import { restartKubeApiServer } from './operations.js';
import { CLUSTER_DIR } from './paths.js';
import { runtimeClient } from './runtime.js';

/** Where the test runs' kube-apiserver audit log goes unless CLUSTER_AUDIT_LOG says otherwise. */
const TEST_AUDIT_LOG = join(CLUSTER_DIR, 'apiserver-audit.log');
const DONE = 'NGX_TEST_AUDIT_LOG_READY';

/**
 * Global setup of the integration projects: kube-apiserver writes its audit log for the whole run, so that the
 * files reading who sent each write (test/controller-handover-stress.test.ts, kubernetes-authorization) never
 * restart it for one, and the hand-over stress can run side by side with the others. tools/test.sh starts the
 * cluster with it; a cluster started without it gets one kube-apiserver restart here. The test log is emptied at
 * the start of each run (kube-apiserver appends, so it keeps writing at the new end), and CLUSTER_AUDIT_LOG is set
 * for the files' own cluster scripts, so that a component restarted by a test keeps writing it. Does nothing when
 * the cluster is not running: the files then fail or skip as they would without this.
 */
export default async function setup(): Promise<void> {
  // Both integration projects name this setup: the second finds it done.
  if (process.env[DONE]) return;
  let pid: number;
  try {
    pid = readPid('kube-apiserver');
  } catch {
    return;
  }
  if (!isAlive(pid)) return;
  let path = runningAuditLog();
  if (!path) {
    path = process.env.CLUSTER_AUDIT_LOG || TEST_AUDIT_LOG;
    const client = runtimeClient();
    try {
      await restartKubeApiServer({ CLUSTER_AUDIT_LOG: path });
      await podsRunAgain(client);
    } finally {
      client.close();
    }
  }
  if (path === TEST_AUDIT_LOG) truncateSync(path);
  process.env.CLUSTER_AUDIT_LOG = path;
  process.env[DONE] = path;
}
