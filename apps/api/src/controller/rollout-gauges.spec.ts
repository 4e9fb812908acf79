import type { Nginx } from '@ngx/nginx-api';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerRolloutGauges, rolloutSeries } from './rollout-gauges.js';

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

describe('rolloutSeries', () => {
  it('reads the phase from the Progressing reason, the canary step and weight, and the newest analysis', () => {
    expect(rolloutSeries(nginx('new'))).toEqual({ namespace: 'team-a', name: 'new', phase: 'Unknown' });
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
    expect(rolloutSeries(canary)).toEqual({
      namespace: 'team-a',
      name: 'web',
      phase: 'Canary',
      canary: { step: 2, weight: 40 },
      analysis: 'Failed',
    });
  });
});

describe('the per-Nginx rollout gauges', () => {
  it('hold one series per Nginx and gauge, read from the cache at each scrape, and lose a deleted Nginx', async () => {
    const registry = new Registry();
    let cache = [
      nginx('web', {
        ...progressing('Canary'),
        canary: { revision: 'abc', step: 1, weight: 20, phase: 'Paused' },
      }),
      nginx('api', progressing('RollingUpdate')),
    ];
    registerRolloutGauges(registry, () => cache);
    let text = await registry.metrics();
    expect(text).toContain('nginx_rollout_phase{namespace="team-a",name="web",phase="Canary"} 1');
    expect(text).toContain('nginx_rollout_phase{namespace="team-a",name="api",phase="RollingUpdate"} 1');
    expect(text).toContain('nginx_canary_step{namespace="team-a",name="web"} 1');
    expect(text).toContain('nginx_canary_weight{namespace="team-a",name="web"} 20');
    expect(text).not.toContain('nginx_canary_weight{namespace="team-a",name="api"}');

    cache = [nginx('api', progressing('ReplicasReady'))];
    await new Promise((resolve) => setTimeout(resolve, 150)); // a later scrape
    text = await registry.metrics();
    expect(text).not.toContain('name="web"');
    expect(text).not.toContain('phase="RollingUpdate"');
    expect(text).toContain('nginx_rollout_phase{namespace="team-a",name="api",phase="ReplicasReady"} 1');
  });
});
