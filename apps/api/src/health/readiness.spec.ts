import { describe, expect, it } from 'vitest';
import { publicReadiness, type Readiness } from './readiness.js';

const failing: Readiness = {
  ready: false,
  role: 'all',
  checks: {
    kubernetes: {
      ok: false,
      server: 'https://10.0.0.1:6443',
      detail: 'connect ECONNREFUSED 10.0.0.1:6443',
    },
    database: {
      ok: false,
      provider: 'postgresql',
      detail: 'password authentication failed for user "nginx" at db.internal:5432',
    },
    controller: { ok: true, detail: 'caches synced, leading', leader: true },
  },
};

describe('publicReadiness', () => {
  it('keeps what probes and the tests read: ready, each ok, the controller and its leadership', () => {
    expect(publicReadiness(failing)).toEqual({
      ready: false,
      role: 'all',
      checks: {
        kubernetes: { ok: false, detail: expect.stringMatching(/^unreachable/) as string },
        database: { ok: false, detail: expect.stringMatching(/^unreachable/) as string },
        controller: { ok: true, detail: 'caches synced, leading', leader: true },
      },
    });
  });

  it('shows no address, provider, version or error text', () => {
    const text = JSON.stringify(publicReadiness(failing));
    for (const secret of [
      '10.0.0.1',
      '6443',
      'ECONNREFUSED',
      'postgresql',
      'password',
      'db.internal',
      'nginx',
    ])
      expect(text).not.toContain(secret);
    const healthy: Readiness = {
      ready: true,
      role: 'all',
      checks: {
        kubernetes: { ok: true, server: 'https://10.0.0.1:6443', detail: 'Kubernetes v1.36.3' },
        database: { ok: true, provider: 'sqlite', detail: 'reachable' },
        controller: { ok: true, detail: 'controller disabled in this process', leader: false },
      },
    };
    expect(publicReadiness(healthy).checks.kubernetes).toEqual({ ok: true, detail: 'reachable' });
    expect(JSON.stringify(publicReadiness(healthy))).not.toMatch(/v1\.36|10\.0\.0\.1|sqlite/);
  });
});
