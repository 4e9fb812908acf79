import { describe, expect, it } from 'vitest';
import type { NginxCanaryStatus } from '@ngx/nginx-api';
import { WrittenRoutes } from './written-routes.js';

const canary = (more: Partial<NginxCanaryStatus> = {}): NginxCanaryStatus => ({
  revision: 'new',
  step: 2,
  weight: 50,
  phase: 'Progressing',
  trafficWeight: 20,
  ...more,
});

describe('WrittenRoutes', () => {
  it('brings a lagging status.canary up to the route last written for its revision', () => {
    const routes = new WrittenRoutes();
    routes.remember('ns/web', 'new', { weight: 50, headerRoute: { name: 'beta', match: [] } });
    expect(routes.caughtUp('ns/web', canary())).toEqual(canary({ trafficWeight: 50, headerRoute: 'beta' }));
  });

  it('leaves a canary alone that says as much, is of another revision, or has nothing remembered', () => {
    const routes = new WrittenRoutes();
    routes.remember('ns/web', 'new', { weight: 20 });
    const same = canary();
    expect(routes.caughtUp('ns/web', same)).toBe(same);
    const other = canary({ revision: 'newer', trafficWeight: 0 });
    expect(routes.caughtUp('ns/web', other)).toBe(other);
    expect(routes.caughtUp('ns/other', canary({ trafficWeight: 5 }))).toEqual(canary({ trafficWeight: 5 }));
    routes.forget('ns/web');
    expect(routes.caughtUp('ns/web', canary({ trafficWeight: 5 }))).toEqual(canary({ trafficWeight: 5 }));
  });
});
