// Starts first: the longest file, it runs beside the others (its controllers, Lease and counts are its namespace's).
// The hand-over under stress: two controllers with leader election, and 24 trials (HANDOVER_TRIALS) in which the
// leader gets SIGTERM or kill -9 at a random moment of a scale-up or a scale-down, on a loaded machine (the other
// files, and a neighbour process that takes any idle core) while the standby's watches lag up to 3 s behind (each
// controller reaches kube-apiserver through a proxy of the test's that holds watch streams back): the new leader's
// cache is behind the old leader's writes when it takes over, as on the loaded machine where one hand-over in 22
// created 432 pods for 400. Every trial must create and delete exactly the pods the change asked for, counted by a
// watch and by kube-apiserver itself: its audit log of the namespace, which the integration projects' global
// setup has it write. The seed is printed; HANDOVER_SEED replays a run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireAuditLog } from './support/apiserver-audit-log.js';
import {
  busyNeighbour,
  describeTrial,
  leaderOf,
  nginxSubject,
  runTrial,
  trialPlans,
  type TrialResult,
} from './support/handover-trials.js';
import { applyNginxCrd } from './support/kubectl.js';
import { createNamespace, nginxesIn, podRecorder } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const TRIALS = Number(process.env.HANDOVER_TRIALS ?? 24);
const SEED = Number(process.env.HANDOVER_SEED ?? Math.floor(Math.random() * 2 ** 31));
// Short leases, so that a kill -9 costs seconds rather than 15: a term's writes get a 2 s server deadline.
const LEASE = {
  LEASE_DURATION_SECONDS: '8',
  LEASE_RENEW_DEADLINE_SECONDS: '5',
  LEASE_RETRY_PERIOD_SECONDS: '1',
};

let auditLog: string;

beforeAll(async () => {
  auditLog = requireAuditLog();
  await applyNginxCrd();
});
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  client.close();
});

describe('the hand-over under stress', () => {
  it(`creates and deletes exactly what each change asks for, over ${TRIALS} hand-overs by SIGTERM and kill -9 on a loaded machine`, async () => {
    console.log(`hand-over stress: seed ${SEED} (HANDOVER_SEED=${SEED} replays it), ${TRIALS} trials`);
    const plans = trialPlans(SEED, TRIALS, {
      maxReplicas: 200,
      minChange: 30,
      stops: ['SIGTERM', 'SIGKILL'],
      msPerPod: 12,
      maxStandbyLagMs: 3000,
    });
    const ns = await createNamespace(client, 'handover-stress', cleanups);
    const recorder = await podRecorder(client, ns);
    cleanups.push(recorder.stop);
    const name = 'stress';
    await nginxesIn(client, ns).create(name, 0);
    const subject = nginxSubject(client, ns, name, LEASE);
    cleanups.push(() => subject.close());
    let pair = await leaderOf(await subject.start(), await subject.start());
    const stopNeighbour = busyNeighbour();
    cleanups.push(stopNeighbour);

    const results: TrialResult[] = [];
    try {
      for (const [index, plan] of plans.entries()) {
        const { result, next } = await runTrial(subject, pair, plan, recorder, auditLog);
        console.log(describeTrial(index, result));
        if (!result.exact || result.convergedMs > 20_000)
          console.log(
            `--- the leader:\n${result.output.leader}\n--- the standby:\n${result.output.standby}\n` +
              `--- pods:\n${result.output.pods}`,
          );
        results.push(result);
        pair = next;
      }
    } finally {
      await stopNeighbour();
    }
    const inexact = results.filter((r) => !r.exact);
    const extra = results.reduce(
      (sum, r) =>
        sum +
        Math.max(0, r.watch.created - r.expected.created) +
        Math.max(0, r.watch.deleted - r.expected.deleted),
      0,
    );
    console.log(
      `hand-over stress (seed ${SEED}): ${results.length} trials, ${inexact.length} not exact, ${extra} extra pods`,
    );
    expect(inexact.map((r) => r.plan)).toEqual([]);
  }, 3_600_000);
});
