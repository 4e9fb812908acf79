import { describe, expect, it } from 'vitest';
import type { Nginx, NginxCanaryStatus } from '@ngx/nginx-api';
import { canaryViewOf } from './canary-view';

const steps = [
  { setWeight: 20 },
  { pause: { duration: '60s' } },
  { analysis: { templateName: 'error-rate' } },
  { pause: {} },
];
const run = {
  name: 'abc-2-error-rate',
  templateName: 'error-rate',
  step: 2,
  phase: 'Failed' as const,
  startedAt: '2026-11-26T10:00:00Z',
  measurements: [{ at: '2026-11-26T10:00:00Z', query: 'q', value: 0.05, phase: 'Failed' as const }],
};
const nginx = (canary?: NginxCanaryStatus, type = 'Canary'): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'ns' },
  spec: { replicas: 10, strategy: { type: type as 'Canary', canary: { steps } } },
  status: canary ? { canary } : {},
});

describe('canaryViewOf', () => {
  it('is undefined for other strategies and before the controller starts a canary', () => {
    expect(canaryViewOf(nginx(undefined))).toBeUndefined();
    expect(
      canaryViewOf(nginx({ revision: 'abc', step: 0, weight: 20, phase: 'Progressing' }, 'RollingUpdate')),
    ).toBeUndefined();
  });

  it('labels each step and marks those done, the current one and those to come', () => {
    const view = canaryViewOf(nginx({ revision: 'abc', step: 1, weight: 20, phase: 'Progressing' }))!;
    expect(view.steps.map((s) => [s.label, s.state])).toEqual([
      ['Set weight 20%', 'done'],
      ['Pause 60s', 'current'],
      ['Analysis error-rate', 'pending'],
      ['Pause until promoted', 'pending'],
    ]);
    expect(view).toMatchObject({ canPromote: true, canAbort: true, weight: 20 });
  });

  it('puts each analysis run beside the step it gated, and names the run an abort names', () => {
    const view = canaryViewOf(
      nginx({
        revision: 'abc',
        step: 2,
        weight: 20,
        phase: 'Aborted',
        abortedBy: run.name,
        analysisRuns: [run],
      }),
    )!;
    expect(view.steps[2]).toMatchObject({ state: 'aborted', runs: [run] });
    expect(view.steps[1]!.runs).toEqual([]);
    expect(view).toMatchObject({ abortedBy: 'abc-2-error-rate', canPromote: false, canAbort: false });
  });

  it('shows every step done once promoted', () => {
    const view = canaryViewOf(nginx({ revision: 'abc', step: 4, weight: 100, phase: 'Promoted' }))!;
    expect(view.steps.every((s) => s.state === 'done')).toBe(true);
    expect(view.canPromote).toBe(false);
  });
});

describe('canaryViewOf with trafficRouting', () => {
  const routed = (canary: NginxCanaryStatus): Nginx => ({
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name: 'web', namespace: 'ns' },
    spec: {
      replicas: 10,
      strategy: {
        type: 'Canary',
        canary: {
          trafficRouting: { gatewayAPI: { httpRoute: 'shop' } },
          steps: [
            { setWeight: 20 },
            {
              setHeaderRoute: {
                name: 'beta',
                match: [
                  { headerName: 'x-beta', headerValue: { exact: 'yes' } },
                  { headerName: 'x-version', headerValue: { prefix: 'v2.' } },
                ],
              },
            },
            { setCanaryScale: { replicas: 5 } },
            { setCanaryScale: { matchTrafficWeight: true } },
          ],
        },
      },
    },
    status: { canary },
  });

  it('labels the header route and canary scale steps in words', () => {
    const view = canaryViewOf(routed({ revision: 'abc', step: 0, weight: 20, phase: 'Progressing' }))!;
    expect(view.steps.map((s) => s.label)).toEqual([
      'Set weight 20%',
      'Header route beta: x-beta = yes, x-version starts with v2.',
      'Canary scale 5 pods',
      'Canary pods follow the traffic weight',
    ]);
  });

  it('shows the weight the route has, the header route in it, and the route as its Gateways report it', () => {
    const view = canaryViewOf(
      routed({
        revision: 'abc',
        step: 2,
        weight: 20,
        phase: 'Progressing',
        trafficWeight: 20,
        headerRoute: 'beta',
        httpRoute: {
          name: 'shop',
          namespace: 'ns',
          accepted: 'True',
          resolvedRefs: 'False',
          message: 'no api',
        },
      }),
    )!;
    expect(view.traffic).toEqual({
      route: 'ns/shop',
      weight: 20,
      headerRoute: { name: 'beta', matches: 'x-beta = yes, x-version starts with v2.' },
      accepted: 'True',
      resolvedRefs: 'False',
      message: 'no api',
    });
    expect(
      canaryViewOf(routed({ revision: 'abc', step: 0, weight: 20, phase: 'Progressing' }))!.traffic,
    ).toEqual({
      route: 'ns/shop',
      weight: 0,
    });
  });
});

describe('canaryViewOf with gates', () => {
  it('labels a webhook gate by where it calls (no query) and a manual gate as a gate, each verdict beside its step', () => {
    const gated: Nginx = {
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: 'web', namespace: 'ns' },
      spec: {
        replicas: 4,
        strategy: {
          type: 'Canary',
          canary: {
            steps: [
              { setWeight: 20 },
              { gate: { webhook: { url: 'https://smoke.example.com/run?token=secret' } } },
              { gate: { manual: {} } },
            ],
          },
        },
      },
      status: {
        canary: {
          revision: 'abc',
          step: 2,
          weight: 20,
          phase: 'Paused',
          gateRuns: [{ name: 'abc-1-gate', step: 1, phase: 'Passed', at: '2026-11-28T10:00:00Z', code: 204 }],
        },
      },
    };
    const view = canaryViewOf(gated)!;
    expect(view.steps.map((s) => [s.label, s.state, s.gates.map((g) => g.phase)])).toEqual([
      ['Set weight 20%', 'done', []],
      ['Gate: webhook https://smoke.example.com/run', 'done', ['Passed']],
      ['Manual gate: waits for a promote', 'current', []],
    ]);
  });
});
