// Canary analysis against a real Prometheus (Debian's, scraping an exporter this test controls, so a revision's
// error rate is what the test says), with the controller and the REST API in one process watching only this
// file's namespace: a canary whose analysis passes walks every step and completes; one whose error rate is above
// the threshold is aborted by the run and every pod goes back to the stable revision, the stable pods never below
// what the step held, the run and its measurements in the status and in the reconcile audit; with Prometheus
// down the analysis is inconclusive and the canary pauses instead of going on.
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import {
  LABEL_REVISION,
  type Nginx,
  type NginxAnalysisTemplate,
  type NginxCanaryStatus,
  type NginxSpec,
  type ReconcileItem,
} from '../libs/nginx-api/src/index.js';
import { isActive, isReady } from '../apps/api/src/controller/pod-plan.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { createNamespace } from './support/operations.js';
import { CounterExporter, TestPrometheus } from './support/prometheus.js';
import { revisionOfSpec, rolloutsIn } from './support/rollouts.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const exporter = new CounterExporter();
let prometheus: TestPrometheus;
let ns: string;
let cp: ControlPlane;
let rollouts: Awaited<ReturnType<typeof rolloutsIn>>;

beforeAll(async () => {
  await exporter.start();
  prometheus = new TestPrometheus(exporter.port);
  await prometheus.start();
  ns = await createNamespace(client, 'canary-analysis', cleanups);
  cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  rollouts = await rolloutsIn(client, ns);
}, 120_000);

afterAll(async () => {
  await rollouts?.stop();
  await cp?.stop();
  await prometheus?.stop();
  await exporter.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

const errorRate = (): NginxAnalysisTemplate => ({
  name: 'error-rate',
  prometheus: {
    address: prometheus.address,
    query:
      'sum(rate(nginx_http_requests_total{status=~"5..",nginx="{{name}}",revision="{{revision}}"}[15s])) / ' +
      'sum(rate(nginx_http_requests_total{nginx="{{name}}",revision="{{revision}}"}[15s]))',
  },
  successCondition: 'result < 0.01',
  interval: '2s',
  count: 2,
  failureLimit: 0,
});

/** Makes the exporter serve `revision` of `name` at 100 requests a second, `errors` of them 5xx. */
async function serve(name: string, revision: string, errors: number): Promise<void> {
  const labels = (status: string) => ({ nginx: name, namespace: ns, revision, status });
  exporter.set([
    { labels: labels('200'), perSecond: 100 - errors },
    { labels: labels('500'), perSecond: errors },
  ]);
  // Two scrapes of the series before the first measurement, so its rate is defined.
  await waitFor(`Prometheus to rate ${name}/${revision}`, async () => {
    const [sample] = await prometheus.query(
      `sum(rate(nginx_http_requests_total{nginx="${name}",revision="${revision}"}[15s]))`,
    );
    return sample !== undefined && Number(sample.value[1]) > 0;
  });
}

const revisionOf = (p: V1Pod) => p.metadata?.labels?.[LABEL_REVISION];
const activeOf = (name: string, revision: string) =>
  rollouts.podsOf(name).filter((p) => isActive(p) && revisionOf(p) === revision).length;

async function start(name: string, spec: NginxSpec): Promise<{ stable: string; update: string }> {
  onTestFailed(() => console.log(`--- app:\n${cp.output().slice(-6000)}`));
  await rollouts.create(name, spec);
  const stable = revisionOfSpec(spec);
  await rollouts.rolledOut(name, spec.replicas, stable);
  return { stable, update: revisionOfSpec({ ...spec, image: 'nginx:1.28' }) };
}

const canaryOf = (name: string, expected: Partial<NginxCanaryStatus>) =>
  waitFor(
    `${name}: status.canary ${JSON.stringify(expected)}`,
    async () => {
      const nginx: Nginx = await rollouts.get(name);
      const canary = nginx.status?.canary;
      const matches =
        canary !== undefined &&
        Object.entries(expected).every(([k, v]) => canary[k as keyof NginxCanaryStatus] === v);
      return matches && nginx;
    },
    { timeoutMs: 120_000, intervalMs: 250 },
  );

const STEPS = [{ setWeight: 30 }, { analysis: { templateName: 'error-rate' } }, { setWeight: 60 }];

describe('canary analysis against Prometheus', () => {
  it('walks every step when the new revision answers well, the run Successful with its measurements', async () => {
    const name = uniqueName('good');
    const spec: NginxSpec = {
      replicas: 10,
      image: 'nginx:1.27',
      strategy: { type: 'Canary', canary: { steps: STEPS } },
      analysis: [errorRate()],
      rollbackOnFailure: true,
    };
    const { update } = await start(name, spec);
    await serve(name, update, 0.1); // 0.1% errors
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    const done = await rollouts.rolledOut(name, 10, update);
    const canary = done.status!.canary!;
    expect(canary).toMatchObject({ revision: update, phase: 'Promoted', weight: 100 });
    const [run] = canary.analysisRuns!;
    expect(run).toMatchObject({ name: `${update}-1-error-rate`, step: 1, phase: 'Successful' });
    expect(run!.measurements).toHaveLength(2);
    for (const m of run!.measurements) {
      expect(m.phase).toBe('Successful');
      expect(m.value).toBeCloseTo(0.001, 3);
      expect(m.query).toContain(`revision="${update}"`);
    }
  }, 240_000);

  it('aborts when the error rate is above the threshold: every pod back on stable, never below the step', async () => {
    const name = uniqueName('bad');
    const spec: NginxSpec = {
      replicas: 10,
      image: 'nginx:1.27',
      strategy: { type: 'Canary', canary: { steps: STEPS } },
      analysis: [errorRate()],
      rollbackOnFailure: true,
    };
    const { stable, update } = await start(name, spec);
    await serve(name, update, 5); // 5% errors
    // From the image change on: the step holds 7 stable pods (30% of 10 on the new revision), and neither the
    // step nor the abort may take the stable revision below that.
    const fewest = { stable: Number.POSITIVE_INFINITY };
    const check = () => (fewest.stable = Math.min(fewest.stable, activeOf(name, stable)));
    const stop = rollouts.pods.addEventHandler({ add: check, update: check, delete: check });
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    const aborted = await canaryOf(name, { revision: update, phase: 'Aborted' });
    const runName = `${update}-1-error-rate`;
    expect(aborted.status!.canary!.abortedBy).toBe(runName);
    const run = aborted.status!.canary!.analysisRuns!.find((r) => r.name === runName)!;
    expect(run.phase).toBe('Failed');
    expect(run.measurements[0]).toMatchObject({ phase: 'Failed' });
    expect(run.measurements[0]!.value).toBeCloseTo(0.05, 2);
    // Why, naming the value and the condition it missed, in the measurement and in the canary's message.
    const missed = run.measurements[0]!.message!;
    expect(missed).toMatch(/^result 0\.0\d* does not meet successCondition result < 0\.01$/);
    expect(aborted.status!.canary!.message).toBe(`Aborted: analysis run ${runName} failed: ${missed}.`);
    await waitFor(
      'every pod back on the stable revision',
      () => {
        const all = rollouts.podsOf(name);
        return all.length === 10 && all.every((p) => isActive(p) && isReady(p) && revisionOf(p) === stable);
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    stop();
    // setWeight 30 of 10 holds 7 stable pods: the abort never took them below that.
    expect(fewest.stable).toBeGreaterThanOrEqual(7);
    expect((await rollouts.get(name)).spec.image).toBe('nginx:1.28'); // the spec is kept

    // The reconcile audit keeps the measurement and names the run the abort came from.
    const actions = await waitFor('the analysis and the abort in the reconcile audit', async () => {
      const answer = (await (
        await cp.as('viewer')(`/controlplane/v1/audit/reconciles?namespace=${ns}&name=${name}&limit=500`)
      ).json()) as { items: ReconcileItem[] };
      const all = answer.items.flatMap((item) => item.actions);
      const measured = all.find((a) => a.kind === 'analysis' && a.object === runName);
      const abort = all.find((a) => a.kind === 'canary' && a.reason === 'aborted');
      return measured && abort && { measured, abort };
    });
    expect(actions.measured.measurement).toMatchObject({ phase: 'Failed' });
    expect(actions.abort.object).toBe(runName);
  }, 240_000);

  it('gates a blue-green promotion on its analyses: a failing pre-promotion run aborts the preview, a failing post-promotion run switches back', async () => {
    const activeSelects = async (name: string) =>
      (await client.request<V1Service>({ path: `/api/v1/namespaces/${ns}/services/${name}-active` })).spec
        ?.selector?.[LABEL_REVISION];
    const blueGreenOf = (name: string, revision: string) =>
      waitFor(
        `${name}: blue-green of ${revision} aborted`,
        async () => {
          const nginx = await rollouts.get(name);
          const blueGreen = nginx.status?.blueGreen;
          return blueGreen?.revision === revision && blueGreen.phase === 'Aborted' && nginx;
        },
        { timeoutMs: 120_000, intervalMs: 250 },
      );

    // Before the switch: the preview answers badly, the pre-promotion run fails, the active Service never moves.
    const early = uniqueName('bg-pre');
    const pre = await start(early, {
      replicas: 4,
      image: 'nginx:1.27',
      strategy: { type: 'BlueGreen', blueGreen: { prePromotionAnalysis: { templateName: 'error-rate' } } },
      analysis: [errorRate()],
    } as NginxSpec);
    await serve(early, pre.update, 5);
    await rollouts.patchSpec(early, { image: 'nginx:1.28' });
    const stopped = await blueGreenOf(early, pre.update);
    expect(stopped.status?.blueGreen).toMatchObject({
      activeRevision: pre.stable,
      abortedBy: `${pre.update}-pre-error-rate`,
    });
    expect(stopped.status?.blueGreen?.promotedAt).toBeUndefined();
    expect(await activeSelects(early)).toBe(pre.stable);

    // After the switch: the post-promotion run fails and the active Service goes back, the old pods still there.
    const late = uniqueName('bg-post');
    const post = await start(late, {
      replicas: 4,
      image: 'nginx:1.27',
      strategy: {
        type: 'BlueGreen',
        blueGreen: { postPromotionAnalysis: { templateName: 'error-rate' }, scaleDownDelaySeconds: 600 },
      },
      analysis: [errorRate()],
    } as NginxSpec);
    await serve(late, post.update, 5);
    await rollouts.patchSpec(late, { image: 'nginx:1.28' });
    const back = await blueGreenOf(late, post.update);
    expect(back.status?.blueGreen).toMatchObject({
      activeRevision: post.stable,
      abortedBy: `${post.update}-post-error-rate`,
      promotedAt: expect.any(String),
    });
    expect(await activeSelects(late)).toBe(post.stable);
    await waitFor(`${late}: the new pods gone, the old ones kept`, () => activeOf(late, post.update) === 0);
    expect(activeOf(late, post.stable)).toBe(4);
  }, 240_000);

  it('pauses, never promotes, while Prometheus cannot be reached, naming why', async () => {
    const name = uniqueName('down');
    const spec: NginxSpec = {
      replicas: 4,
      image: 'nginx:1.27',
      strategy: { type: 'Canary', canary: { steps: STEPS } },
      analysis: [
        { ...errorRate(), prometheus: { ...errorRate().prometheus, address: 'http://127.0.0.1:9' } },
      ],
    };
    const { stable, update } = await start(name, spec);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    const paused = await canaryOf(name, { revision: update, step: 1, phase: 'Paused' });
    const run = paused.status!.canary!.analysisRuns![0]!;
    expect(run.phase).toBe('Inconclusive');
    expect(run.measurements[0]!.message).toMatch(/unreachable/i);
    // Why, in the canary's own message: which run, its phase, and the measurement's cause (what the request to
    // Prometheus failed with).
    const why = paused.status!.canary!.message!;
    const cause = why.match(/: analysis run (\S+) is Inconclusive: (Prometheus unreachable: .+)$/);
    expect(cause?.[1], why).toBe(run.name);
    expect(run.measurements.map((m) => m.message)).toContain(cause![2]);
    // Held at 30%: 2 of 4 on the new revision (rounded up), 2 stable.
    expect(activeOf(name, update)).toBe(2);
    expect(activeOf(name, stable)).toBe(2);
  }, 240_000);
});
