// npm run bench:handover [-- --quick] — reports, never asserts. Needs the local cluster.
// The leader's hand-over, tried as the CI stress test does (test/support/handover-trials.ts) but 200 times: two
// instances, the leader sent SIGTERM or kill -9 at a random moment of a scale-up or a scale-down of up to 400 pods,
// a neighbour process taking any idle core; ours with the standby's watches held back up to 3 s. Then, like for
// like (60 trials each, SIGTERM, nothing held back): ours next to kube-controller-manager's ReplicaSet controller
// handed over the same way: two kube-controller-managers with leader
// election (the cluster's own one stopped meanwhile), with its default SIGTERM (the process exits and leaves the
// Lease to expire) and with its alpha gate ControllerManagerReleaseLeaderElectionLockOnExit (it releases it). Both
// with the same lease timings. For every trial: the pods created and deleted beyond what the change asked for
// (by a watch, and by kube-apiserver), and the time from the signal until the workload converged.
// Writes bench/results/handover.{md,json}.
import { join } from 'node:path';
import { withAuditLog } from '../test/support/apiserver-audit-log.js';
import {
  busyNeighbour,
  describeTrial,
  leaderOf,
  nginxSubject,
  quietCluster,
  runTrial,
  trialPlans,
  type HandoverSubject,
  type Stop,
  type TrialResult,
} from '../test/support/handover-trials.js';
import { applyNginxCrd } from '../test/support/kubectl.js';
import { clusterScript } from '../test/support/cluster-processes.js';
import { createNamespace, nginxesIn, podRecorder } from '../test/support/operations.js';
import { ROOT } from '../test/support/paths.js';
import { runtimeClient } from '../test/support/runtime.js';
import { REPLICA_SET } from './convergence/workload.js';
import { clusterKcmCommand, kcmSubject, stopClusterKcm } from './handover/kcm-subject.js';
import { quantile, wholeMs } from './latency-stats.js';
import { runStamp, writeResults } from './results-file.js';

const QUICK = process.argv.includes('--quick');
const TRIALS = Number(process.env.BENCH_HANDOVER_TRIALS ?? (QUICK ? 8 : 200));
/** Trials of each like-for-like run: ours by SIGTERM with no lag, and kube-controller-manager's two. */
const KCM_TRIALS = Number(process.env.BENCH_HANDOVER_KCM_TRIALS ?? (QUICK ? 4 : 60));
const SEED = Number(process.env.HANDOVER_SEED ?? Math.floor(Math.random() * 2 ** 31));
const LEASE = { durationSeconds: 8, renewDeadlineSeconds: 5, retryPeriodSeconds: 1 };
const MAX_REPLICAS = QUICK ? 100 : 400;
const client = runtimeClient({ qps: 1000, burst: 1000 });

interface Run {
  controller: string;
  stops: Stop[];
  maxStandbyLagMs: number;
  trials: TrialResult[];
}

async function trials(
  label: string,
  subject: HandoverSubject & { close(): Promise<void> },
  recorder: Awaited<ReturnType<typeof podRecorder>>,
  auditLog: string,
  options: { count: number; stops: Stop[]; maxStandbyLagMs: number; seed: number },
): Promise<Run> {
  const plans = trialPlans(options.seed, options.count, {
    maxReplicas: MAX_REPLICAS,
    minChange: 30,
    stops: options.stops,
    msPerPod: 12,
    maxStandbyLagMs: options.maxStandbyLagMs,
  });
  const run: Run = {
    controller: label,
    stops: options.stops,
    maxStandbyLagMs: options.maxStandbyLagMs,
    trials: [],
  };
  const stopNeighbour = busyNeighbour();
  try {
    let pair = await leaderOf(await subject.start(), await subject.start());
    for (const [index, plan] of plans.entries()) {
      await quietCluster(client);
      const { result, next } = await runTrial(subject, pair, plan, recorder, auditLog);
      console.log(`${label} ${describeTrial(index, result)}`);
      run.trials.push(result);
      pair = next;
    }
  } finally {
    await stopNeighbour();
    await subject.close();
  }
  return run;
}

async function ours(auditLog: string, held: boolean): Promise<Run> {
  const namespace = await createNamespace(client, 'bench-handover-ngx');
  const recorder = await podRecorder(client, namespace);
  try {
    await nginxesIn(client, namespace).create('bench', 0);
    const subject = nginxSubject(client, namespace, 'bench', {
      LEASE_DURATION_SECONDS: String(LEASE.durationSeconds),
      LEASE_RENEW_DEADLINE_SECONDS: String(LEASE.renewDeadlineSeconds),
      LEASE_RETRY_PERIOD_SECONDS: String(LEASE.retryPeriodSeconds),
    });
    return held
      ? await trials('ours, standby held back 0–3 s', subject, recorder, auditLog, {
          count: TRIALS,
          stops: ['SIGTERM', 'SIGKILL'],
          maxStandbyLagMs: 3000,
          seed: SEED,
        })
      : await trials('ours', subject, recorder, auditLog, {
          count: KCM_TRIALS,
          stops: ['SIGTERM'],
          maxStandbyLagMs: 0,
          seed: SEED + 3,
        });
  } finally {
    await recorder.stop();
    await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
  }
}

async function replicaSets(auditLog: string, releaseOnExit: boolean): Promise<Run> {
  const namespace = await createNamespace(client, 'bench-handover-rs');
  const recorder = await podRecorder(client, namespace);
  const command = clusterKcmCommand();
  await stopClusterKcm();
  try {
    await client.request({
      method: 'POST',
      path: REPLICA_SET.collection(namespace),
      body: REPLICA_SET.manifest('bench', 0),
    });
    const subject = kcmSubject(client, namespace, 'bench', command, { lease: LEASE, releaseOnExit });
    const label = `kube-controller-manager${releaseOnExit ? ' (releases on exit)' : ''}`;
    return await trials(label, subject, recorder, auditLog, {
      count: KCM_TRIALS,
      stops: ['SIGTERM'],
      maxStandbyLagMs: 0,
      seed: SEED + (releaseOnExit ? 2 : 1),
    });
  } finally {
    await recorder.stop();
    await clusterScript('up'); // the cluster's own kube-controller-manager again
    await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${namespace}` }).catch(() => {});
  }
}

/** Pods created or deleted beyond what the change asked for, by the watch. */
const extra = (t: TrialResult) =>
  Math.max(0, t.watch.created - t.expected.created) + Math.max(0, t.watch.deleted - t.expected.deleted);

function row(run: Run, stop: Stop): string | undefined {
  const trials = run.trials.filter((t) => t.plan.stop === stop);
  if (trials.length === 0) return undefined;
  const ms = trials.map((t) => t.convergedMs);
  const extras = trials.map(extra);
  const histogram = new Map<number, number>();
  for (const n of extras) histogram.set(n, (histogram.get(n) ?? 0) + 1);
  const distribution = [...histogram]
    .sort(([a], [b]) => a - b)
    .map(([n, count]) => `${n}: ${count}`)
    .join(', ');
  const stopName = stop === 'SIGKILL' ? 'kill -9' : 'SIGTERM';
  return (
    `| ${run.controller} | ${stopName} | ${trials.length} | ${trials.filter((t) => !t.exact).length} | ` +
    `${distribution} | ${wholeMs(quantile(ms, 0.5))} | ${wholeMs(quantile(ms, 0.9))} | ${wholeMs(Math.max(...ms))} |`
  );
}

async function main(): Promise<void> {
  const version = await client.request<{ gitVersion: string }>({ path: '/version' });
  const stamp = runStamp(version.gitVersion);
  console.log(`bench:handover seed ${SEED} (HANDOVER_SEED replays it)`);
  const audit = await withAuditLog(client, join(ROOT, '.data', 'handover-audit.log'));
  const runs: Run[] = [];
  try {
    await applyNginxCrd();
    await quietCluster(client);
    runs.push(await ours(audit.path, true));
    runs.push(await ours(audit.path, false));
    runs.push(await replicaSets(audit.path, false));
    runs.push(await replicaSets(audit.path, true));
  } finally {
    await audit.restore();
    client.close();
  }
  const rows = runs.flatMap((run) => [row(run, 'SIGTERM'), row(run, 'SIGKILL')]).filter(Boolean);
  const markdown = [
    '# The leader’s hand-over: our Nginx controller next to the ReplicaSet controller',
    '',
    `Run ${stamp.date} on this repository at ${stamp.commit}: Kubernetes ${stamp.kubernetes} (local control plane, ` +
      `kwok nodes), Node.js ${process.version}, seed ${SEED}. Each trial changes the replicas (scale-ups and ` +
      `scale-downs of 30 to ${MAX_REPLICAS} pods in turn) and sends the leader its signal at a random moment ` +
      'before the change would be done; a neighbour process takes any idle core throughout. Lease timings ' +
      `${LEASE.durationSeconds} s / ${LEASE.renewDeadlineSeconds} s / ${LEASE.retryPeriodSeconds} s (duration, ` +
      'renew deadline, retry period) for both. In the first run our standby’s watches are held back by a random ' +
      '0–3 s (each instance reaches kube-apiserver through the test’s proxy), so that it takes over with a cache ' +
      'behind the old leader’s writes, as on a loaded machine; the other runs compare like with like: SIGTERM, ' +
      'nothing held back (a kube-controller-manager standby runs no informer before it leads, so there is nothing ' +
      'to hold back anyway).',
    '',
    'Extra pods: created or deleted beyond what the change asked for, counted by a watch of the namespace (and ' +
      'checked against kube-apiserver’s audit log of the namespace). ' +
      '"Converged": from the signal until exactly the wanted pods run and the object’s status says so.',
    '',
    '| controller | stop | trials | not exact | extra pods: trials | converged p50 (ms) | p90 (ms) | max (ms) |',
    '| --- | --- | ---: | ---: | --- | ---: | ---: | ---: |',
    ...rows,
    '',
    'A trial whose signal came after the leader had finished converges at once (a few ms): the distributions mix ' +
      'those with real hand-overs, for both controllers alike.',
    '',
  ].join('\n');
  writeResults('handover', markdown, {
    ...stamp,
    seed: SEED,
    lease: LEASE,
    runs: runs.map((run) => ({ ...run, trials: run.trials.map(({ output: _output, ...t }) => t) })),
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
