import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_REVISION, podTemplateOf, type NginxAnalysisTemplate } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import {
  blueGreenRunName,
  planBlueGreen,
  type BlueGreenInput,
  type BlueGreenStatus,
} from './bluegreen-plan.js';
import { gateRunName, withGateRun } from './gate-runs.js';

const NOW = Date.parse('2026-11-28T10:00:00Z');
const iso = (at: number) => new Date(at).toISOString();
const TEMPLATE = podTemplateOf({ replicas: 1, image: 'nginx:1.27' });
let count = 0;
function pod(revision: string, ready = true): V1Pod {
  return {
    metadata: {
      name: `web-${++count}`,
      labels: { [LABEL_REVISION]: revision },
      creationTimestamp: new Date(NOW - 60_000 + count) as unknown as Date,
    },
    spec: { nodeName: 'n', containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    status: {
      phase: 'Running',
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
const pods = (n: number, revision: string, ready = true) =>
  Array.from({ length: n }, () => pod(revision, ready));
const ANALYSIS: NginxAnalysisTemplate = {
  name: 'errors',
  prometheus: { address: 'http://prometheus:9090', query: 'x' },
  successCondition: 'result < 1',
};
const plan = (input: Partial<BlueGreenInput> & { pods: V1Pod[] }) =>
  planBlueGreen({
    replicas: 4,
    strategy: {},
    analysis: [ANALYSIS],
    stableRevision: 'blue',
    updateRevision: 'green',
    template: TEMPLATE,
    minReadySeconds: 0,
    now: NOW,
    burst: 500,
    previous: undefined,
    requests: {},
    ...input,
  });
const previewing = (more: Partial<BlueGreenStatus> = {}): BlueGreenStatus => ({
  revision: 'green',
  activeRevision: 'blue',
  phase: 'Previewing',
  ...more,
});

describe('planBlueGreen', () => {
  it('without a stable revision scales the update revision, active at once', () => {
    const first = plan({ pods: [], stableRevision: undefined });
    expect(first).toMatchObject({ create: 4, activeRevision: 'green', blueGreen: undefined });
  });

  it('previews the new revision beside every stable pod, the stable one active', () => {
    const start = plan({ pods: pods(4, 'blue'), strategy: { autoPromotionEnabled: false } });
    expect(start).toMatchObject({
      create: 4,
      createStable: 0,
      activeRevision: 'blue',
      previewRevision: 'green',
    });
    expect(start.blueGreen).toEqual(previewing());
    const small = plan({ pods: pods(4, 'blue'), strategy: { previewReplicaCount: 1 } });
    expect(small.create).toBe(1);
  });

  it('waits Paused for a promote without autoPromotion; a promote scales up and switches once all are up', () => {
    const strategy = { autoPromotionEnabled: false, previewReplicaCount: 2 };
    const ready = plan({ pods: [...pods(4, 'blue'), ...pods(2, 'green')], strategy });
    expect(ready.blueGreen).toMatchObject({ phase: 'Paused', previewReadyAt: iso(NOW) });
    expect(ready.activeRevision).toBe('blue');

    const promoting = plan({
      pods: [...pods(4, 'blue'), ...pods(2, 'green')],
      strategy,
      previous: ready.blueGreen,
      requests: { promote: 'green/full' },
    });
    expect(promoting).toMatchObject({ create: 2, activeRevision: 'blue' });
    expect(promoting.blueGreen?.phase).toBe('Promoting');

    const switched = plan({
      pods: [...pods(4, 'blue'), ...pods(4, 'green')],
      strategy,
      previous: promoting.blueGreen,
      requests: { promote: 'green/full' },
    });
    expect(switched.activeRevision).toBe('green');
    expect(switched.blueGreen).toMatchObject({
      activeRevision: 'green',
      promotedAt: iso(NOW),
      phase: 'Promoting',
    });
    expect(switched.delete).toHaveLength(0); // the old pods stay for the scale-down delay
    expect(switched.recheckInMs).toBe(30_000);
  });

  it('promotes by itself autoPromotionSeconds after the preview was ready', () => {
    const strategy = { autoPromotionSeconds: 60 };
    const status = previewing({ previewReadyAt: iso(NOW - 20_000) });
    const early = plan({ pods: [...pods(4, 'blue'), ...pods(4, 'green')], strategy, previous: status });
    expect(early.blueGreen?.phase).toBe('Previewing');
    expect(early.recheckInMs).toBe(40_000);
    const due = plan({
      pods: [...pods(4, 'blue'), ...pods(4, 'green')],
      strategy,
      previous: status,
      now: NOW + 40_000,
    });
    expect(due.activeRevision).toBe('green');
  });

  it('scales the old revision down once the delay has passed, then is Promoted', () => {
    const switched = previewing({
      activeRevision: 'green',
      promotedAt: iso(NOW - 31_000),
      phase: 'Promoting',
    });
    const down = plan({ pods: [...pods(4, 'blue'), ...pods(4, 'green')], previous: switched });
    expect(down.delete.map((d) => d.reason)).toEqual([
      'scale-down',
      'scale-down',
      'scale-down',
      'scale-down',
    ]);
    expect(down.activeRevision).toBe('green');
    const done = plan({ pods: pods(4, 'green'), previous: switched });
    expect(done.blueGreen?.phase).toBe('Promoted');
  });

  it('runs the pre-promotion analysis on a ready preview: Failed aborts, Successful promotes', () => {
    const strategy = { prePromotionAnalysis: { templateName: 'errors' } };
    const all = [...pods(4, 'blue'), ...pods(4, 'green')];
    const started = plan({ pods: all, strategy });
    const run = blueGreenRunName('green', 'pre', 'errors');
    expect(started.measure?.run).toBe(run);
    const failed = plan({
      pods: all,
      strategy,
      previous: {
        ...started.blueGreen!,
        analysisRuns: [
          {
            name: run,
            templateName: 'errors',
            step: 0,
            phase: 'Running',
            startedAt: iso(NOW),
            measurements: [{ at: iso(NOW), query: 'x', value: 5, phase: 'Failed' }],
          },
        ],
      },
    });
    expect(failed.blueGreen?.phase).toBe('Aborted');
    expect(failed.activeRevision).toBe('blue');
    expect(failed.delete).toHaveLength(4);
  });

  it('aborts on request: the stable revision active in one write, the preview pods deleted', () => {
    const aborted = plan({
      pods: [...pods(4, 'blue'), ...pods(4, 'green')],
      previous: previewing({ activeRevision: 'green', promotedAt: iso(NOW), phase: 'Promoting' }),
      requests: { abort: 'green' },
    });
    expect(aborted.activeRevision).toBe('blue');
    expect(aborted.blueGreen).toMatchObject({ phase: 'Aborted', activeRevision: 'blue' });
    expect(aborted.delete.every((d) => d.pod.metadata?.labels?.[LABEL_REVISION] === 'green')).toBe(true);
  });
});

describe('planBlueGreen, once the old pods are gone', () => {
  it('ends Promoting as Promoted when the update revision became the stable one in the same sync', () => {
    const result = plan({
      stableRevision: 'green',
      pods: pods(4, 'green'),
      previous: { revision: 'green', activeRevision: 'green', phase: 'Promoting' },
    });
    expect(result.blueGreen?.phase).toBe('Promoted');
    expect([result.activeRevision, result.previewRevision]).toEqual(['green', 'green']);
  });
});

describe('planBlueGreen with a pre-promotion gate', () => {
  const webhook = { url: 'https://smoke.test/run' };
  const ready = () => [...pods(4, 'blue'), ...pods(4, 'green')];
  const run = gateRunName('green', 'pre');

  it('calls the webhook once the preview is ready, promotes once it passed, aborts when it failed', () => {
    const asked = plan({ strategy: { prePromotionGate: { webhook } }, pods: ready() });
    expect(asked.callGate).toEqual({ run, step: 0, webhook });
    expect(asked.activeRevision).toBe('blue');
    const verdict = (phase: 'Passed' | 'Failed') =>
      withGateRun(asked.blueGreen!, {
        name: run,
        step: 0,
        phase,
        at: iso(NOW),
        message: 'HTTP 500: smoke failed',
      });
    const passed = plan({
      strategy: { prePromotionGate: { webhook } },
      pods: ready(),
      previous: verdict('Passed'),
    });
    expect(passed.activeRevision).toBe('green');
    const failed = plan({
      strategy: { prePromotionGate: { webhook } },
      pods: ready(),
      previous: verdict('Failed'),
    });
    expect(failed.blueGreen).toMatchObject({ phase: 'Aborted', abortedBy: run, activeRevision: 'blue' });
    expect(failed.blueGreen?.message).toBe(`Aborted: gate ${run} failed: HTTP 500: smoke failed.`);
  });

  it('waits at a manual gate for a promote', () => {
    const waiting = plan({ strategy: { prePromotionGate: { manual: {} } }, pods: ready() });
    expect(waiting.blueGreen).toMatchObject({ phase: 'Paused', activeRevision: 'blue' });
    expect(waiting.blueGreen?.message).toContain('manual gate');
    const promoted = plan({
      strategy: { prePromotionGate: { manual: {} } },
      pods: ready(),
      previous: waiting.blueGreen,
      requests: { promote: 'green/full' },
    });
    expect(promoted.activeRevision).toBe('green');
  });
});

describe('planBlueGreen while spec.paused', () => {
  it('holds a rollout where it is: no preview made, no switch, even when promoted', () => {
    const before = plan({ paused: true, pods: pods(4, 'blue') });
    expect([before.create, before.createStable, before.delete.length]).toEqual([0, 0, 0]);
    expect(before.activeRevision).toBe('blue');
    expect(before.blueGreen).toBeUndefined();
    const waiting = plan({
      paused: true,
      pods: [...pods(4, 'blue'), ...pods(4, 'green')],
      previous: { revision: 'green', activeRevision: 'blue', phase: 'Paused' },
      requests: { promote: 'green/full' },
    });
    expect(waiting.activeRevision).toBe('blue');
    expect(waiting.blueGreen?.phase).toBe('Paused');
  });
});
