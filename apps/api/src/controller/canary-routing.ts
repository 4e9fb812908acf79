import type { Nginx, NginxCanaryStatus } from '@ngx/nginx-api';
import {
  planCanary,
  routeWritten,
  withRouteWritten,
  type CanaryInput,
  type CanaryPlan,
  type RouteWant,
} from './canary-plan.js';
import type { ReconcileReport } from './reconcile-report.js';
import type { RouteProblem, RouteSync } from './route-sync.js';

/** How long a canary held by its route (missing, not granted, refused) waits before looking again: no event wakes it. */
export const ROUTE_RECHECK_MS = 5_000;

/** Route writes planned again within one sync at most (a setWeight, then a setHeaderRoute, …); the rest next sync. */
const MAX_ROUTE_PASSES = 4;

/**
 * A canary plan with trafficRouting, its route made to hold `plan.route` first: written when it differs (RouteSync),
 * recorded in status.canary (trafficWeight, headerRoute, the route's status read back), then planned again, since a
 * step waiting for its weight is done once the route has it. So the route moves before any pod of the plan: an
 * abort's weight 0 lands before the canary's pods are deleted.
 *
 * A route that cannot be made so (missing, no ReferenceGrant, no rule for the stable Service, a write refused)
 * holds a canary in progress where it is, Paused with why, pods untouched, and is looked at again after
 * ROUTE_RECHECK_MS. An abort's pods wait only for a write that failed (a route that is gone or does not send to
 * our Services carries no canary traffic); with no canary in progress the pods never wait for a route.
 */
export async function routedPlan(input: {
  nginx: Nginx;
  plan: CanaryPlan;
  planInput: CanaryInput;
  routes: RouteSync;
  report: ReconcileReport;
  signal?: AbortSignal;
  /** Told each route the canary's revision now has, as it is known to hold it (see WrittenRoutes). */
  held?: (revision: string, route: RouteWant) => void;
}): Promise<CanaryPlan> {
  const { nginx, planInput, routes, report, signal } = input;
  const revisions = {
    stable: planInput.stableRevision ?? planInput.updateRevision,
    canary: planInput.updateRevision,
  };
  let plan = input.plan;
  for (let pass = 0; pass < MAX_ROUTE_PASSES; pass++) {
    const outcome = await routes.ensure(nginx, plan.route!, revisions, report, signal);
    if (!outcome.ok) return heldByRoute(plan, outcome, planInput);
    if (!plan.canary) return plan;
    input.held?.(plan.canary.revision, plan.route!);
    const canary = withRouteWritten({ ...plan.canary, httpRoute: outcome.route }, plan.route!);
    if (routeWritten(plan.canary, plan.route!)) return { ...plan, canary };
    plan = planCanary({ ...planInput, previous: canary });
    if (!plan.canary || routeWritten(plan.canary, plan.route!))
      return plan.measure || plan.callGate ? { ...plan, recheckInMs: 0 } : plan;
  }
  return { ...plan, recheckInMs: 0 };
}

function inProgress(canary: NginxCanaryStatus | undefined, planInput: CanaryInput): boolean {
  return (
    canary !== undefined &&
    canary.revision === planInput.updateRevision &&
    planInput.stableRevision !== undefined &&
    planInput.stableRevision !== planInput.updateRevision &&
    (canary.phase === 'Progressing' || canary.phase === 'Paused')
  );
}

function heldByRoute(plan: CanaryPlan, problem: RouteProblem, planInput: CanaryInput): CanaryPlan {
  const recheckInMs = Math.min(plan.recheckInMs ?? ROUTE_RECHECK_MS, ROUTE_RECHECK_MS);
  if (!inProgress(plan.canary, planInput)) {
    const aborting = plan.canary?.phase === 'Aborted' && plan.canary.revision === planInput.updateRevision;
    if (!aborting || problem.reason !== 'HTTPRouteWriteFailed') return plan;
    return { ...plan, create: 0, createStable: 0, delete: [], recheckInMs }; // weight 0 first, then the pods
  }
  const { measure: _measure, ...rest } = plan;
  return {
    ...rest,
    create: 0,
    createStable: 0,
    delete: [],
    canary: { ...plan.canary!, phase: 'Paused', message: `Paused: ${problem.message} (${problem.reason}).` },
    recheckInMs,
  };
}
