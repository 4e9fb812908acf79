import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { LABEL_SERVICE_ROLE, rolloutServiceNames, rolloutServicesFor } from './rollout-services.js';

const nginx = (strategy: Record<string, unknown> | undefined): Nginx =>
  ({
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name: 'web', namespace: 'shop', uid: 'u1' },
    spec: { replicas: 2, ...(strategy ? { strategy } : {}) },
  }) as Nginx;

const selectors = (services: ReturnType<typeof rolloutServicesFor>) =>
  Object.fromEntries(
    services.map((s) => [
      `${s.metadata.name} (${s.metadata.labels?.[LABEL_SERVICE_ROLE]})`,
      s.spec?.selector?.['mycompany.com/revision'],
    ]),
  );

describe('rolloutServicesFor', () => {
  it('keeps a blue-green rollout’s active and preview Services, each on its revision, under their names', () => {
    const blueGreen = nginx({ type: 'BlueGreen', blueGreen: { previewService: 'web-next' } });
    expect(rolloutServiceNames(blueGreen)).toEqual({ active: 'web-active', preview: 'web-next' });
    expect(selectors(rolloutServicesFor(blueGreen, { active: 'blue', preview: 'green' }))).toEqual({
      'web-active (active)': 'blue',
      'web-next (preview)': 'green',
    });
  });

  it('keeps a routed canary’s stable and canary Services, and none for other strategies', () => {
    const routed = nginx({
      type: 'Canary',
      canary: { trafficRouting: { gatewayAPI: { httpRoute: 'web' } } },
    });
    expect(selectors(rolloutServicesFor(routed, { stable: 'a', canary: 'b', active: 'c' }))).toEqual({
      'web-stable (stable)': 'a',
      'web-canary (canary)': 'b',
    });
    expect(rolloutServicesFor(nginx({ type: 'Canary', canary: {} }), { stable: 'a' })).toEqual([]);
    expect(rolloutServiceNames(nginx(undefined))).toEqual({});
  });
});
