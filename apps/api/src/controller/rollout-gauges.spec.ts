import type { Nginx } from '@ngx/nginx-api';
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerRolloutGauges } from './rollout-gauges.js';

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
    text = await registry.metrics();
    expect(text).not.toContain('name="web"');
    expect(text).not.toContain('phase="RollingUpdate"');
    expect(text).toContain('nginx_rollout_phase{namespace="team-a",name="api",phase="ReplicasReady"} 1');
  });
});
