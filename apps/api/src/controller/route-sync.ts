import {
  collectionPath,
  endedWithTerm,
  errorMessage,
  type EventRecorder,
  isApiError,
  type KubeRequester,
  objectPath,
} from '@ngx/kube-runtime';
import { jsonEqual, type Nginx, type NginxHTTPRouteStatus } from '@ngx/nginx-api';
import {
  HTTP_ROUTES,
  REFERENCE_GRANTS,
  type HTTPRoute,
  type ReferenceGrant,
} from '../traffic-routing/http-route.js';
import {
  isStableRule,
  referenceGranted,
  routeRules,
  routeStatus,
  type RouteTarget,
} from '../traffic-routing/route-rules.js';
import type { RouteWant } from './canary-plan.js';
import { canaryServiceNames, type ServiceRevisions } from './rollout-services.js';
import type { RolloutServiceSync, ServiceProblem } from './rollout-service-sync.js';
import type { ReconcileReport } from './reconcile-report.js';
import { APPLY_PATCH, FIELD_MANAGER } from './server-side-apply.js';

/** Why the route could not be made to hold what the canary wants: the canary waits (Paused) until it can. */
export interface RouteProblem {
  reason:
    | 'HTTPRouteNotFound'
    | 'ReferenceNotGranted'
    | 'StableServiceNotReferenced'
    | ServiceProblem['reason']
    | 'HTTPRouteWriteFailed';
  message: string;
}

/** The route made to hold what was wanted (`written`: by a write of ours now), and its status read back. */
export type RouteOutcome =
  { ok: true; written: boolean; route: NginxHTTPRouteStatus } | ({ ok: false } & RouteProblem);

/**
 * Keeps a canary's traffic routing: its stable and canary Services (RolloutServiceSync), then its HTTPRoute's rules (route-rules.ts),
 * in that order, so a Service already selects the right pods when the route sends it traffic. Reads only the
 * route the Nginx names (GET) and writes it by server-side apply of spec.rules alone (PATCH): rules are an atomic
 * list, so the write carries every rule as read, changed only where the canary weighs; resourceVersion makes it
 * conditional on the route read, so an edit made meanwhile is never overwritten unseen.
 */
export class RouteSync {
  constructor(
    private readonly deps: {
      client: KubeRequester;
      services: RolloutServiceSync;
      events: EventRecorder;
    },
  ) {}

  async ensure(
    nginx: Nginx,
    want: RouteWant,
    revisions: ServiceRevisions,
    report: ReconcileReport,
    signal?: AbortSignal,
  ): Promise<RouteOutcome> {
    const serviceProblem = await this.deps.services.ensure(nginx, revisions, report);
    if (serviceProblem) return { ok: false, ...serviceProblem };
    const gateway = nginx.spec.strategy!.canary!.trafficRouting!.gatewayAPI;
    const serviceNamespace = nginx.metadata.namespace!;
    const routeNamespace = gateway.namespace ?? serviceNamespace;
    const names = canaryServiceNames(nginx);
    const where = `HTTPRoute ${routeNamespace}/${gateway.httpRoute}`;
    const path = objectPath({ ...HTTP_ROUTES, namespace: routeNamespace }, gateway.httpRoute);
    let route: HTTPRoute;
    try {
      route = await this.deps.client.request<HTTPRoute>({ path, signal });
    } catch (error) {
      if (isApiError(error, 404))
        return { ok: false, reason: 'HTTPRouteNotFound', message: `${where} not found` };
      throw error;
    }
    if (routeNamespace !== serviceNamespace) {
      const grants = await this.deps.client.request<{ items: ReferenceGrant[] }>({
        path: collectionPath({ ...REFERENCE_GRANTS, namespace: serviceNamespace }),
        signal,
      });
      if (!referenceGranted(grants.items, routeNamespace, [names.stable, names.canary]))
        return {
          ok: false,
          reason: 'ReferenceNotGranted',
          message: `${where} may not refer to Services of namespace ${serviceNamespace}: no ReferenceGrant there allows it`,
        };
    }
    const target: RouteTarget = {
      serviceNamespace,
      routeNamespace,
      stableService: names.stable,
      canaryService: names.canary,
      weight: want.weight,
      ...(want.headerRoute ? { headerRoute: want.headerRoute } : {}),
    };
    const rules = route.spec?.rules ?? [];
    if (!rules.some((rule) => isStableRule(rule, target)))
      return {
        ok: false,
        reason: 'StableServiceNotReferenced',
        message: `${where} has no rule sending traffic to Service ${names.stable}`,
      };
    const wanted = routeRules(rules, target);
    if (jsonEqual(wanted, rules)) return { ok: true, written: false, route: routeStatus(route) };
    try {
      const applied = await this.deps.client.request<HTTPRoute>({
        method: 'PATCH',
        path,
        query: { fieldManager: FIELD_MANAGER, force: true },
        contentType: APPLY_PATCH,
        body: {
          apiVersion: `${HTTP_ROUTES.group}/${HTTP_ROUTES.version}`,
          kind: 'HTTPRoute',
          metadata: {
            name: gateway.httpRoute,
            namespace: routeNamespace,
            resourceVersion: route.metadata.resourceVersion,
          },
          spec: { rules: wanted },
        },
        signal,
      });
      const header = want.headerRoute ? `, header route ${want.headerRoute.name}` : '';
      report.record({ kind: 'route', object: where, reason: `weight ${want.weight}${header}` });
      return { ok: true, written: true, route: routeStatus(applied) };
    } catch (error) {
      if (endedWithTerm(error)) throw error;
      const message = `Error writing ${where}: ${errorMessage(error)}`;
      this.deps.events.event(nginx, 'Warning', 'FailedSync', message);
      return { ok: false, reason: 'HTTPRouteWriteFailed', message };
    }
  }
}
