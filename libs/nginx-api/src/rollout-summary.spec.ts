import { describe, expect, it } from 'vitest';
import { rolloutSummary, rolloutVerdict } from './rollout-summary.js';
import type { Nginx } from './types.js';

const nginx = (name: string, status?: Nginx['status']): Nginx =>
  ({
    metadata: { namespace: 'team-a', name },
    spec: { replicas: 3 },
    ...(status ? { status } : {}),
  }) as Nginx;

const progressing = (reason: string) => ({
  conditions: [
    {
      type: 'Progressing',
      status: 'True' as const,
      reason,
      message: '',
      lastTransitionTime: '2026-11-28T08:00:00Z',
    },
  ],
});

describe('rolloutSummary', () => {
  it('reads the phase from the Progressing reason, the canary step and weight, and the newest analysis', () => {
    expect(rolloutSummary(nginx('new'))).toEqual({
      namespace: 'team-a',
      name: 'new',
      desired: 3,
      ready: 0,
      phase: 'Unknown',
    });
    const run = (phase: string, startedAt: string) => ({
      name: `r-${phase}`,
      templateName: 't',
      step: 1,
      phase,
      startedAt,
      measurements: [],
    });
    const canary = nginx('web', {
      ...progressing('Canary'),
      canary: {
        revision: 'abc',
        step: 2,
        weight: 40,
        phase: 'Progressing',
        analysisRuns: [run('Failed', '2026-11-28T08:02:00Z'), run('Successful', '2026-11-28T08:01:00Z')],
      },
    } as unknown as Nginx['status']);
    expect(rolloutSummary(canary)).toEqual({
      namespace: 'team-a',
      name: 'web',
      desired: 3,
      ready: 0,
      phase: 'Canary',
      canary: { step: 2, steps: 0, weight: 40, phase: 'Progressing' },
      analysis: 'Failed',
    });
  });
});

describe('rolloutVerdict', () => {
  const at = (reason: string, extra: Partial<NonNullable<Nginx['status']>> = {}, generation = 2) =>
    ({
      metadata: { namespace: 'team-a', name: 'web', generation },
      spec: { replicas: 3 },
      status: {
        observedGeneration: 2,
        readyReplicas: 3,
        updatedReplicas: 3,
        ...progressing(reason),
        ...extra,
      },
    }) as Nginx;

  it('is done once the generation is observed and Progressing says ReplicasReady', () => {
    expect(rolloutVerdict(at('ReplicasReady')).state).toBe('done');
    expect(rolloutVerdict(at('ReplicasReady', {}, 3))).toEqual({
      state: 'waiting',
      message: 'Waiting for the controller to observe generation 3',
    });
  });

  it.each(['ProgressDeadlineExceeded', 'CanaryAborted', 'BlueGreenAborted', 'RolledBack', 'InvalidConfig'])(
    'has failed when Progressing says %s',
    (reason) => expect(rolloutVerdict(at(reason)).state).toBe('failed'),
  );

  it.each(['RollingUpdate', 'Canary', 'CanaryPaused', 'BlueGreen', 'BlueGreenPaused', 'Paused', 'ScalingUp'])(
    'waits while Progressing says %s',
    (reason) => expect(rolloutVerdict(at(reason)).state).toBe('waiting'),
  );

  it('says what a canary waits for, a manual gate as a gate', () => {
    const waiting = at('CanaryPaused', {
      updateRevision: 'r2',
      canary: {
        revision: 'r2',
        step: 2,
        weight: 50,
        phase: 'Paused',
        message: 'Waiting at step 3 of 3: a manual gate, until a promote.',
      },
    });
    expect(rolloutVerdict(waiting).message).toBe(
      'Waiting for rollout to finish: 3 of 3 updated pods, 3 ready (CanaryPaused: Waiting at step 3 of 3: a manual gate, until a promote.)',
    );
  });
});

describe('rolloutSummary with trafficRouting', () => {
  it('gives the weight the route sends the canary, 0 until it is written', () => {
    const routed = (trafficWeight?: number): Nginx => ({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: 'web', namespace: 'ns' },
      spec: {
        replicas: 4,
        strategy: {
          type: 'Canary',
          canary: { steps: [{ setWeight: 20 }], trafficRouting: { gatewayAPI: { httpRoute: 'web' } } },
        },
      },
      status: {
        canary: {
          revision: 'r',
          step: 0,
          weight: 20,
          phase: 'Progressing',
          ...(trafficWeight === undefined ? {} : { trafficWeight }),
        },
      },
    });
    expect(rolloutSummary(routed()).canary?.weight).toBe(0);
    expect(rolloutSummary(routed(20)).canary?.weight).toBe(20);
  });
});
