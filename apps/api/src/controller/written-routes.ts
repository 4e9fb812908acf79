import type { NginxCanaryStatus } from '@ngx/nginx-api';
import { routeWritten, withRouteWritten, type RouteWant } from './canary-plan.js';

/**
 * The route each Nginx's canary last had written by this process, by canary revision. status.canary records the
 * same once its write lands; when that write failed (a conflict) after the route's had succeeded, status.canary
 * lags the route, and a sync planning from it could write the older weight back. `caughtUp` gives the canary as
 * the route stands instead. Kept in memory only: a new leader starts from status.canary (and the route as read).
 */
export class WrittenRoutes {
  private readonly routes = new Map<string, { revision: string; route: RouteWant }>();

  remember(key: string, revision: string, route: RouteWant): void {
    this.routes.set(key, { revision, route });
  }

  /** `canary` with the route this process last wrote for its revision, where status.canary lags it. */
  caughtUp(key: string, canary: NginxCanaryStatus | undefined): NginxCanaryStatus | undefined {
    const written = this.routes.get(key);
    if (!canary || !written || written.revision !== canary.revision || routeWritten(canary, written.route))
      return canary;
    return withRouteWritten(canary, written.route);
  }

  forget(key: string): void {
    this.routes.delete(key);
  }
}
