import type { V1Pod } from '@kubernetes/client-node';
import {
  LABEL_REVISION,
  podTemplateOf,
  type NginxAnalysisTemplate,
  type NginxCanaryStatus,
  type NginxCanaryStep,
} from '@ngx/nginx-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gateRunName, withGateRun } from './gate-runs.js';
import { isActive } from './pod-plan.js';
import {
  canaryScale,
  canaryTarget,
  planCanary,
  routeWritten,
  withRouteWritten,
  planRollback,
  runName,
  withMeasurement,
  type CanaryInput,
  type CanaryPlan,
} from './canary-plan.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');
const STABLE = 'stable';
const NEW = 'new';
const TEMPLATE = podTemplateOf({ replicas: 1, image: 'nginx:1.27' });
const iso = (at: number) => new Date(at).toISOString();

let count = 0;
function pod(revision: string, options: { ready?: boolean; failed?: boolean } = {}): V1Pod {
  const ready = options.ready ?? true;
  return {
    metadata: {
      name: `web-${++count}`,
      labels: { [LABEL_REVISION]: revision },
      creationTimestamp: new Date(NOW - 60_000 + count) as unknown as Date,
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    status: {
      phase: options.failed ? 'Failed' : 'Running',
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          lastTransitionTime: new Date(NOW - 60_000) as unknown as Date,
        },
      ],
    },
  };
}
const pods = (n: number, revision: string, options?: Parameters<typeof pod>[1]) =>
  Array.from({ length: n }, () => pod(revision, options));

const STEPS: NginxCanaryStep[] = [
  { setWeight: 20 },
  { pause: { duration: '2s' } },
  { setWeight: 50 },
  { pause: {} },
];
const ANALYSIS: NginxAnalysisTemplate = {
  name: 'errors',
  prometheus: { address: 'http://prometheus:9090', query: 'x' },
  successCondition: 'result < 1',
};

const plan = (input: Partial<CanaryInput> & { pods: V1Pod[] }) =>
  planCanary({
    replicas: 10,
    canary: { steps: STEPS },
    analysis: [ANALYSIS],
    rollbackOnFailure: false,
    stableRevision: STABLE,
    updateRevision: NEW,
    template: TEMPLATE,
    minReadySeconds: 0,
    now: NOW,
    burst: 500,
    previous: undefined,
    requests: {},
    ...input,
  });

const status = (step: number, extra: Partial<NginxCanaryStatus> = {}): NginxCanaryStatus => ({
  revision: NEW,
  step,
  weight: 0,
  phase: 'Progressing',
  stepStartedAt: iso(NOW - 1000),
  ...extra,
});
const deleted = (p: CanaryPlan, revision: string) =>
  p.delete.filter((d) => d.pod.metadata?.labels?.[LABEL_REVISION] === revision).length;

describe('canaryTarget', () => {
  it('rounds up, at least one pod above 0, never above replicas', () => {
    expect(canaryTarget(0, 10)).toBe(0);
    expect(canaryTarget(20, 10)).toBe(2);
    expect(canaryTarget(1, 10)).toBe(1);
    expect(canaryTarget(25, 3)).toBe(1);
    expect(canaryTarget(50, 3)).toBe(2);
    expect(canaryTarget(100, 3)).toBe(3);
    expect(canaryTarget(10, 0)).toBe(0);
  });
});

describe('planCanary', () => {
  it('without a stable revision simply scales the update revision, with no canary', () => {
    for (const stableRevision of [undefined, NEW]) {
      const p = plan({ stableRevision, pods: [] });
      expect(p).toMatchObject({ create: 10, createStable: 0, canary: undefined });
    }
  });

  it('keeps a Promoted canary of the update revision once the stable revision caught up', () => {
    const promoted = status(4, { phase: 'Promoted', weight: 100 });
    expect(plan({ stableRevision: NEW, previous: promoted, pods: pods(10, NEW) }).canary).toEqual(promoted);
  });

  it('starts at step 0 of a new revision and surges the canary pods first (maxUnavailable 0)', () => {
    const p = plan({ pods: pods(10, STABLE) });
    expect(p.canary).toMatchObject({ revision: NEW, step: 0, weight: 20, phase: 'Progressing' });
    expect(p.canary?.stepStartedAt).toBe(iso(NOW));
    expect(p).toMatchObject({ create: 2, createStable: 0, delete: [] });
  });

  it('deletes stable pods only once the canary pods are available', () => {
    const coming = plan({
      previous: status(0),
      pods: [...pods(10, STABLE), ...pods(2, NEW, { ready: false })],
    });
    expect(coming.delete).toEqual([]);
    const up = plan({ previous: status(0), pods: [...pods(10, STABLE), ...pods(2, NEW)] });
    expect(deleted(up, STABLE)).toBe(2);
    expect(up.create).toBe(0);
    expect(up.canary?.step).toBe(0);
  });

  it('moves past a setWeight step once both counts are met and available, into a timed pause', () => {
    const p = plan({
      previous: status(0, { stepStartedAt: iso(NOW - 60_000) }),
      pods: [...pods(8, STABLE), ...pods(2, NEW)],
    });
    expect(p.canary).toMatchObject({ step: 1, weight: 20, phase: 'Progressing', stepStartedAt: iso(NOW) });
    expect(p.recheckInMs).toBe(2000);
    expect(p).toMatchObject({ create: 0, createStable: 0, delete: [] });
  });

  it('waits out a pause counted from stepStartedAt, then goes on', () => {
    const during = plan({
      previous: status(1, { weight: 20, stepStartedAt: iso(NOW - 500) }),
      pods: [...pods(8, STABLE), ...pods(2, NEW)],
    });
    expect(during.canary?.step).toBe(1);
    expect(during.recheckInMs).toBe(1500);
    const after = plan({
      previous: status(1, { weight: 20, stepStartedAt: iso(NOW - 2000) }),
      pods: [...pods(8, STABLE), ...pods(2, NEW)],
    });
    expect(after.canary).toMatchObject({ step: 2, weight: 50 });
    expect(after.create).toBe(3); // maxSurge 25% of 10
  });

  it('holds Paused at pause {} until a promote naming the revision and the step', () => {
    const at = [...pods(5, STABLE), ...pods(5, NEW)];
    const paused = plan({ previous: status(3, { weight: 50 }), pods: at });
    expect(paused.canary).toMatchObject({ step: 3, phase: 'Paused' });
    expect(paused.canary?.message).toContain('step 4 of 4');
    expect(paused).toMatchObject({ create: 0, createStable: 0, delete: [] });
    for (const stale of ['other/3', `${NEW}/2`, `${NEW}/full-ish`])
      expect(
        plan({ previous: status(3, { weight: 50 }), pods: at, requests: { promote: stale } }).canary?.phase,
      ).toBe('Paused');
    const promoted = plan({
      previous: status(3, { weight: 50 }),
      pods: at,
      requests: { promote: `${NEW}/3` },
    });
    expect(promoted.canary).toMatchObject({ step: 4, weight: 100, phase: 'Progressing' });
    expect(promoted.canary?.message).toBeUndefined();
    expect(promoted.create).toBe(3);
  });

  it('a full promote skips every step left', () => {
    const p = plan({ previous: status(0), pods: pods(10, STABLE), requests: { promote: `${NEW}/full` } });
    expect(p.canary).toMatchObject({ step: 4, weight: 100 });
  });

  it('is Promoted once every pod runs the update revision and is available', () => {
    const rolling = plan({
      previous: status(4, { weight: 100 }),
      pods: [...pods(1, STABLE), ...pods(10, NEW)],
    });
    expect(rolling.canary?.phase).toBe('Progressing');
    expect(deleted(rolling, STABLE)).toBe(1);
    const done = plan({ previous: status(4, { weight: 100 }), pods: pods(10, NEW) });
    expect(done.canary).toMatchObject({ phase: 'Promoted', weight: 100 });
  });

  it('drains pods of any other old revision before stable ones', () => {
    const p = plan({ previous: status(0), pods: [...pods(8, STABLE), ...pods(2, 'older'), ...pods(2, NEW)] });
    expect(deleted(p, 'older')).toBe(2);
    expect(deleted(p, STABLE)).toBe(0);
  });

  it('a new update revision restarts at step 0, its old runs dropped', () => {
    const old = status(3, { revision: 'previous-canary', weight: 50, analysisRuns: [] });
    const p = plan({ previous: old, pods: [...pods(5, STABLE), ...pods(5, 'previous-canary')] });
    expect(p.canary).toMatchObject({ revision: NEW, step: 0, weight: 20, phase: 'Progressing' });
    expect(p.canary?.analysisRuns).toBeUndefined();
  });

  describe('abort', () => {
    const at = () => [...pods(5, STABLE), ...pods(5, NEW)];
    it('on request: every stable pod missing is created at once, the canary pods deleted, no stable one', () => {
      const p = plan({ previous: status(3, { weight: 50 }), pods: at(), requests: { abort: NEW } });
      expect(p.canary).toMatchObject({ phase: 'Aborted', weight: 0, message: 'Aborted by request.' });
      expect(p).toMatchObject({ create: 0, createStable: 5 });
      expect(deleted(p, NEW)).toBe(5);
      expect(deleted(p, STABLE)).toBe(0);
    });
    it('ignores an abort naming another revision', () => {
      expect(
        plan({ previous: status(3, { weight: 50 }), pods: at(), requests: { abort: 'other' } }).canary?.phase,
      ).toBe('Paused');
    });
    it('stays Aborted for the same revision, promote or not', () => {
      const aborted = status(3, { phase: 'Aborted', message: 'Aborted by request.' });
      const p = plan({ previous: aborted, pods: pods(10, STABLE), requests: { promote: `${NEW}/full` } });
      expect(p.canary?.phase).toBe('Aborted');
      expect(p).toMatchObject({ create: 0, createStable: 0, delete: [] });
    });
    it('planRollback caps creations and deletions at the burst and sheds only a stable surplus', () => {
      const p = planRollback({
        replicas: 10,
        stableRevision: STABLE,
        pods: [...pods(2, STABLE), ...pods(9, NEW)],
        burst: 4,
      });
      expect(p.createStable).toBe(4);
      expect(p.delete).toHaveLength(4);
      const over = planRollback({ replicas: 2, stableRevision: STABLE, pods: pods(3, STABLE), burst: 10 });
      expect(over.delete.map((d) => d.reason)).toEqual(['scale-down']);
    });
  });

  describe('gate steps', () => {
    const webhook = { url: 'http://smoke.test/run', timeoutSeconds: 5 };
    const steps: NginxCanaryStep[] = [
      { setWeight: 20 },
      { gate: { webhook } },
      { gate: { manual: {} } },
      { setWeight: 50 },
    ];
    const at = () => [...pods(8, STABLE), ...pods(2, NEW)];
    const run = gateRunName(NEW, 1);
    const decided = (phase: 'Passed' | 'Failed', message?: string) =>
      withGateRun(status(1, { weight: 20 }), {
        name: run,
        step: 1,
        phase,
        at: iso(NOW),
        ...(message ? { message } : {}),
      });

    it('asks for the webhook once, named <revision>-<step>-gate, and holds the step until its verdict', () => {
      const p = plan({ canary: { steps }, previous: status(1, { weight: 20 }), pods: at() });
      expect(p.callGate).toEqual({ run, step: 1, webhook });
      expect(p.canary).toMatchObject({ step: 1, phase: 'Progressing' });
    });
    it('a passed webhook goes on; a manual gate then waits for a promote, said as a gate', () => {
      const p = plan({ canary: { steps }, previous: decided('Passed'), pods: at() });
      expect(p.callGate).toBeUndefined();
      expect(p.canary).toMatchObject({ step: 2, phase: 'Paused' });
      expect(p.canary?.message).toBe('Waiting at step 3 of 4: a manual gate, until a promote.');
      const promoted = plan({
        canary: { steps },
        previous: p.canary,
        pods: at(),
        requests: { promote: `${NEW}/2` },
      });
      expect(promoted.canary).toMatchObject({ step: 3, weight: 50, phase: 'Progressing' });
    });
    it('a failed webhook pauses with its answer; with rollbackOnFailure it aborts, abortedBy the gate', () => {
      const why = 'no answer within 5 s';
      const paused = plan({ canary: { steps }, previous: decided('Failed', why), pods: at() });
      expect(paused.canary).toMatchObject({ step: 1, phase: 'Paused' });
      expect(paused.canary?.message).toBe(
        `Paused at step 2 of 4: gate ${run} failed (${why}); promote or abort.`,
      );
      expect(paused.callGate).toBeUndefined();
      const aborted = plan({
        canary: { steps },
        previous: decided('Failed', why),
        pods: at(),
        rollbackOnFailure: true,
      });
      expect(aborted.canary).toMatchObject({ phase: 'Aborted', abortedBy: run });
      expect(aborted.canary?.message).toBe(`Aborted: gate ${run} failed: ${why}.`);
      expect(deleted(aborted, NEW)).toBe(2);
    });
  });

  describe('analysis steps', () => {
    const steps: NginxCanaryStep[] = [
      { setWeight: 20 },
      { analysis: { templateName: 'errors' } },
      { setWeight: 50 },
    ];
    const at = () => [...pods(8, STABLE), ...pods(2, NEW)];
    const run = runName(NEW, 1, 'errors');
    const measured = (phase: 'Successful' | 'Failed' | 'Inconclusive' | 'Error', message?: string) =>
      withMeasurement(
        plan({ canary: { steps }, previous: status(1, { weight: 20 }), pods: at() }).canary!,
        run,
        ANALYSIS,
        { at: iso(NOW), query: 'x', phase, ...(message ? { message } : {}) },
      );

    it('starts a run named <revision>-<step>-<template> and asks for its first measurement at once', () => {
      const p = plan({ canary: { steps }, previous: status(1, { weight: 20 }), pods: at() });
      expect(p.canary?.analysisRuns).toEqual([
        {
          name: run,
          templateName: 'errors',
          step: 1,
          phase: 'Running',
          startedAt: iso(NOW),
          measurements: [],
        },
      ]);
      expect(p.measure).toEqual({ run, template: ANALYSIS });
    });
    it('a Successful run goes on to the next step', () => {
      const p = plan({ canary: { steps }, previous: measured('Successful'), pods: at() });
      expect(p.canary).toMatchObject({ step: 2, weight: 50, phase: 'Progressing' });
      expect(p.canary?.analysisRuns?.[0]?.phase).toBe('Successful');
    });
    it('a Failed run pauses, naming it and why; with rollbackOnFailure it aborts, abortedBy the run', () => {
      const why = 'result 0.2 does not meet successCondition result < 0.01';
      const paused = plan({ canary: { steps }, previous: measured('Failed', why), pods: at() });
      expect(paused.canary).toMatchObject({ step: 1, phase: 'Paused' });
      expect(paused.canary?.message).toContain(run);
      expect(paused.canary?.message).toContain(why);
      const aborted = plan({
        canary: { steps },
        previous: measured('Failed', why),
        pods: at(),
        rollbackOnFailure: true,
      });
      expect(aborted.canary).toMatchObject({ phase: 'Aborted', abortedBy: run });
      expect(aborted.canary?.message).toBe(`Aborted: analysis run ${run} failed: ${why}.`);
      expect(aborted).toMatchObject({ createStable: 2 });
      expect(deleted(aborted, NEW)).toBe(2);
    });
    it('Inconclusive and Error pause with the measurement message, never promote, even with rollbackOnFailure', () => {
      for (const phase of ['Inconclusive', 'Error'] as const) {
        const p = plan({
          canary: { steps },
          previous: measured(phase, 'no analysis provider'),
          pods: at(),
          rollbackOnFailure: true,
        });
        expect(p.canary).toMatchObject({ step: 1, phase: 'Paused' });
        expect(p.canary?.message).toContain('no analysis provider');
        expect(p.canary?.message).toContain(run);
      }
    });
    it('a promote moves past a Paused analysis step', () => {
      const p = plan({
        canary: { steps },
        previous: measured('Inconclusive', 'x'),
        pods: at(),
        requests: { promote: `${NEW}/1` },
      });
      expect(p.canary).toMatchObject({ step: 2, weight: 50, phase: 'Progressing' });
    });
    it('waits for the next measurement of a run of several', () => {
      const template = { ...ANALYSIS, count: 3, interval: '10s' };
      const previous = withMeasurement(
        plan({ canary: { steps }, analysis: [template], previous: status(1, { weight: 20 }), pods: at() })
          .canary!,
        run,
        template,
        { at: iso(NOW - 4000), query: 'x', phase: 'Successful' },
      );
      const p = plan({ canary: { steps }, analysis: [template], previous, pods: at() });
      expect(p.measure).toBeUndefined();
      expect(p.recheckInMs).toBe(6000);
    });
  });

  it('replaces a failed pod', () => {
    const [failed] = pods(1, STABLE, { failed: true });
    const p = plan({
      previous: status(0, { stepStartedAt: iso(NOW) }),
      pods: [...pods(7, STABLE), failed!, ...pods(2, NEW)],
    });
    expect(p.delete.map((d) => d.reason)).toEqual(['pod-failed']);
    expect(p.createStable).toBe(1);
  });

  it('walks any step list to Promoted without leaving the bounds, stable never below its target on the way', () => {
    const weights = fc.array(fc.integer({ min: 0, max: 100 }), { minLength: 1, maxLength: 4 });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), weights, (replicas, ws) => {
        let live = pods(replicas, STABLE);
        let previous: NginxCanaryStatus | undefined;
        const canary = { steps: ws.map((w) => ({ setWeight: w })) };
        for (let round = 0; round < 200; round++) {
          const p = plan({ replicas, canary, previous, pods: live });
          previous = p.canary;
          if (previous?.phase === 'Promoted') return;
          const gone = new Set(p.delete.map((d) => d.pod));
          live = [
            ...live.filter((x) => !gone.has(x)),
            ...pods(p.create, NEW),
            ...pods(p.createStable, STABLE),
          ];
          const active = live.filter(isActive);
          expect(active.length).toBeLessThanOrEqual(replicas + Math.ceil(replicas / 4));
          expect(active.length).toBeGreaterThanOrEqual(replicas);
        }
        throw new Error(`never promoted: ${JSON.stringify(previous)}`);
      }),
    );
  });
});

describe('planCanary while held', () => {
  it('paused: nothing moves between revisions, the canary status is kept', () => {
    const previous = status(0, { weight: 20 });
    const p = plan({ previous, paused: true, pods: [...pods(9, STABLE), ...pods(1, NEW)] });
    expect(p).toMatchObject({ create: 0, createStable: 0, delete: [], canary: previous });
  });
  it('an invalid template never gets a pod, even with nothing else running', () => {
    const p = plan({ invalid: true, pods: [] });
    expect(p).toMatchObject({ create: 0, createStable: 0 });
  });
});

describe('planCanary with trafficRouting', () => {
  const HEADER = { name: 'beta', match: [{ headerName: 'x-beta', headerValue: { exact: 'yes' } }] };
  const ROUTED: NginxCanaryStep[] = [
    { setWeight: 20 },
    { setHeaderRoute: HEADER },
    { setCanaryScale: { replicas: 5 } },
    { pause: {} },
  ];
  const routed = (input: Partial<CanaryInput> & { pods: V1Pod[] }) =>
    plan({ trafficRouting: true, canary: { steps: ROUTED }, ...input });
  const at = (step: number, more: Partial<NginxCanaryStatus> = {}): NginxCanaryStatus => ({
    revision: NEW,
    step,
    weight: 20,
    phase: 'Progressing',
    stepStartedAt: iso(NOW),
    ...more,
  });

  it('keeps every stable pod and adds the canary’s for the weight before the route moves', () => {
    const start = routed({ pods: pods(10, STABLE) });
    expect(start.canary).toMatchObject({ step: 0, weight: 20 });
    expect(start.route).toEqual({ weight: 0 });
    expect([start.create, start.delete.length]).toEqual([2, 0]);
  });

  it('asks for the route’s weight once the canary’s pods are ready, and moves on once it is written', () => {
    const ready = routed({ pods: [...pods(10, STABLE), ...pods(2, NEW)] });
    expect(ready.canary).toMatchObject({ step: 0, weight: 20 });
    expect(ready.route).toEqual({ weight: 20 });
    expect(routeWritten(ready.canary, ready.route!)).toBe(false);

    // Written: the step is done and the header route is asked for next, the weight kept.
    const written = routed({
      pods: [...pods(10, STABLE), ...pods(2, NEW)],
      previous: withRouteWritten(ready.canary!, ready.route!),
    });
    expect(written.canary).toMatchObject({ step: 1, trafficWeight: 20 });
    expect(written.route).toEqual({ weight: 20, headerRoute: HEADER });

    // The header route written: setCanaryScale takes the canary to 5 pods at the same weight, then the pause.
    const scaled = routed({
      pods: [...pods(10, STABLE), ...pods(2, NEW)],
      previous: withRouteWritten(written.canary!, written.route!),
    });
    expect(scaled.canary).toMatchObject({ step: 3, phase: 'Paused', trafficWeight: 20, headerRoute: 'beta' });
    expect(scaled.route).toEqual({ weight: 20, headerRoute: HEADER });
    expect(scaled.create).toBe(3);
  });

  it('past the last step: 100 once the canary has every pod, then the stable pods go; Promoted drops the header route', () => {
    const past = at(4, { trafficWeight: 20, headerRoute: 'beta' });
    const growing = routed({ pods: [...pods(10, STABLE), ...pods(5, NEW)], previous: past });
    expect(growing.route).toEqual({ weight: 20, headerRoute: HEADER });
    expect([growing.create, growing.delete.length]).toEqual([5, 0]); // 20 pods wanted, surge 3

    const full = routed({ pods: [...pods(10, STABLE), ...pods(10, NEW)], previous: past });
    expect(full.route).toEqual({ weight: 100, headerRoute: HEADER });
    expect(full.delete).toHaveLength(0);

    const draining = routed({
      pods: [...pods(10, STABLE), ...pods(10, NEW)],
      previous: { ...past, trafficWeight: 100 },
    });
    expect(draining.route).toEqual({ weight: 100, headerRoute: HEADER });
    expect(draining.delete.length).toBeGreaterThan(0);
    expect(draining.delete.every(({ pod }) => pod.metadata?.labels?.[LABEL_REVISION] === STABLE)).toBe(true);

    const promoted = routed({ pods: pods(10, NEW), previous: { ...past, trafficWeight: 100 } });
    expect(promoted.canary).toMatchObject({ phase: 'Promoted' });
    expect(promoted.route).toEqual({ weight: 100 });
  });

  it('aborts with the weight at 0 and no header route, the pods back to stable', () => {
    const aborted = routed({
      pods: [...pods(10, STABLE), ...pods(5, NEW)],
      previous: at(3, { trafficWeight: 20, headerRoute: 'beta', phase: 'Paused' }),
      requests: { abort: NEW },
    });
    expect(aborted.canary).toMatchObject({ phase: 'Aborted' });
    expect(aborted.route).toEqual({ weight: 0 });
    expect(aborted.delete).toHaveLength(5);
  });

  it('with no canary in progress the route sends nothing to the canary; held by spec.paused it keeps its weight', () => {
    expect(routed({ pods: pods(10, STABLE), stableRevision: undefined }).route).toEqual({ weight: 0 });
    const held = routed({
      pods: [...pods(10, STABLE), ...pods(2, NEW)],
      previous: at(1, { trafficWeight: 20 }),
      paused: true,
    });
    expect(held.route).toEqual({ weight: 20 });
  });

  it('a pause of the route’s making is decided again: a canary no longer held moves on', () => {
    const resumed = routed({
      pods: [...pods(10, STABLE), ...pods(2, NEW)],
      previous: at(0, { phase: 'Paused', message: 'Paused: HTTPRoute a/b not found (HTTPRouteNotFound).' }),
    });
    expect(resumed.canary).toMatchObject({ step: 0, phase: 'Progressing' });
    expect(resumed.canary?.message).toBeUndefined();
  });
});

describe('canaryScale', () => {
  const steps: NginxCanaryStep[] = [
    { setWeight: 10 },
    { setCanaryScale: { replicas: 3 } },
    { setWeight: 50 },
    { setCanaryScale: { weight: 80 } },
    { setCanaryScale: { matchTrafficWeight: true } },
  ];
  it('follows the weight unless the last setCanaryScale at or before the step says otherwise', () => {
    expect(canaryScale(steps, 0, 10, 10)).toBe(1);
    expect(canaryScale(steps, 2, 50, 10)).toBe(3);
    expect(canaryScale(steps, 1, 10, 2)).toBe(2); // never above spec.replicas
    expect(canaryScale(steps, 3, 50, 10)).toBe(8);
    expect(canaryScale(steps, 4, 50, 10)).toBe(5);
  });
});
