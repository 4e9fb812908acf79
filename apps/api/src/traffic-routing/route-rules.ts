import type { NginxHeaderMatch, NginxHTTPRouteStatus } from '@ngx/nginx-api';
import type {
  BackendRef,
  HeaderMatch,
  HTTPRoute,
  ReferenceGrant,
  RouteMatch,
  RouteRule,
} from './http-route.js';

/** What a canary wants of its HTTPRoute now. */
export interface RouteTarget {
  /** The Nginx's namespace, where its Services are. */
  serviceNamespace: string;
  /** The route's namespace (a backendRef without a namespace means this one). */
  routeNamespace: string;
  stableService: string;
  canaryService: string;
  /** The canary's share of the traffic, 0–100; the stable Service gets the rest. */
  weight: number;
  /** The setHeaderRoute in force, if any: requests matching it all go to the canary. */
  headerRoute?: { name: string; match: readonly NginxHeaderMatch[] };
}

/** Whether `ref` names the Service `service` of the target's namespace. */
function refersTo(ref: BackendRef, service: string, target: RouteTarget): boolean {
  return (
    (ref.group ?? '') === '' &&
    (ref.kind ?? 'Service') === 'Service' &&
    ref.name === service &&
    (ref.namespace ?? target.routeNamespace) === target.serviceNamespace
  );
}

/** Whether `rule` sends traffic to the stable Service: the rules the canary weighs. */
export function isStableRule(rule: RouteRule, target: RouteTarget): boolean {
  return (rule.backendRefs ?? []).some((ref) => refersTo(ref, target.stableService, target));
}

/** Whether `rule` is a header route the canary added: it sends traffic to the canary Service only. */
function isHeaderRule(rule: RouteRule, target: RouteTarget): boolean {
  const refs = rule.backendRefs ?? [];
  return refs.length > 0 && refs.every((ref) => refersTo(ref, target.canaryService, target));
}

/**
 * The route's rules as the canary wants them, from the rules as read: in each rule that refers to the stable
 * Service, the stable backendRef weighs `100 − weight` and the canary's, beside it (same port, namespace and
 * filters), `weight`; the header route's rules (one per stable rule: its matches, each also requiring the headers;
 * its filters; the canary alone) follow that rule while a header route is in force. Every other rule, backendRef
 * and field is kept as read, so what other managers set survives the write (rules are an atomic list in the CRD:
 * a write carries all of them).
 */
export function routeRules(rules: readonly RouteRule[], target: RouteTarget): RouteRule[] {
  const stableRules = rules.filter((rule) => isStableRule(rule, target));
  const wanted: RouteRule[] = [];
  for (const rule of rules) {
    if (isHeaderRule(rule, target)) continue;
    if (!stableRules.includes(rule)) {
      wanted.push(rule);
      continue;
    }
    wanted.push({ ...rule, backendRefs: weighted(rule.backendRefs ?? [], target) });
    if (target.headerRoute) wanted.push(headerRule(rule, stableRules.indexOf(rule), target));
  }
  return wanted;
}

function weighted(refs: readonly BackendRef[], target: RouteTarget): BackendRef[] {
  const out: BackendRef[] = [];
  for (const ref of refs) {
    if (refersTo(ref, target.canaryService, target)) continue;
    if (!refersTo(ref, target.stableService, target)) {
      out.push(ref);
      continue;
    }
    out.push({ ...ref, weight: 100 - target.weight });
    out.push({ ...ref, name: target.canaryService, weight: target.weight });
  }
  return out;
}

function headerRule(stableRule: RouteRule, index: number, target: RouteTarget): RouteRule {
  const { name: _name, matches, backendRefs, ...rest } = stableRule;
  const route = target.headerRoute!;
  const stableRef = backendRefs!.find((ref) => refersTo(ref, target.stableService, target))!;
  // Weight 1 spelled out (the CRD's default), so the rule reads back as written.
  const canaryRef = { ...stableRef, name: target.canaryService, weight: 1 };
  const headers = route.match.map(headerMatch);
  return {
    name: index === 0 ? route.name : `${route.name}-${index + 1}`,
    ...rest,
    matches: (matches?.length ? matches : [{}]).map((match) => withHeaders(match, headers)),
    backendRefs: [canaryRef],
  };
}

/** A setHeaderRoute match as Gateway API says it: exact as Exact; prefix and regex as RegularExpression. */
export function headerMatch(match: NginxHeaderMatch): HeaderMatch {
  const { exact, prefix, regex } = match.headerValue;
  if (exact !== undefined) return { type: 'Exact', name: match.headerName, value: exact };
  if (prefix !== undefined)
    return { type: 'RegularExpression', name: match.headerName, value: `^${escapeRegex(prefix)}.*` };
  return { type: 'RegularExpression', name: match.headerName, value: regex! };
}

const escapeRegex = (text: string) => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

/** `match` also requiring `headers` (header names are case-insensitive: ours replace theirs of the same name). */
function withHeaders(match: RouteMatch, headers: HeaderMatch[]): RouteMatch {
  const ours = new Set(headers.map((header) => header.name.toLowerCase()));
  const kept = (match.headers ?? []).filter((header) => !ours.has(header.name.toLowerCase()));
  return { ...match, headers: [...kept, ...headers] };
}

/**
 * The canary's weight as the route holds it: the canary backendRef's weight in the first stable rule; 0 when it
 * has none there (never written yet, or removed by someone), undefined when no rule refers to the stable Service.
 */
export function routeWeight(rules: readonly RouteRule[], target: RouteTarget): number | undefined {
  const rule = rules.find((r) => isStableRule(r, target));
  if (!rule) return undefined;
  const canary = rule.backendRefs!.find((ref) => refersTo(ref, target.canaryService, target));
  return canary ? (canary.weight ?? 1) : 0;
}

/** The route's Accepted and ResolvedRefs over its parents: False if any says False, True if all say True. */
export function routeStatus(route: HTTPRoute): NginxHTTPRouteStatus {
  const parents = route.status?.parents ?? [];
  const verdict = (type: string) => {
    const conditions = parents.map((parent) => parent.conditions?.find((c) => c.type === type));
    const failed = conditions.find((c) => c?.status === 'False');
    if (failed) return { status: 'False' as const, message: failed.message || failed.reason };
    return {
      status:
        conditions.length > 0 && conditions.every((c) => c?.status === 'True')
          ? ('True' as const)
          : ('Unknown' as const),
    };
  };
  const accepted = verdict('Accepted');
  const resolvedRefs = verdict('ResolvedRefs');
  const message = accepted.message ?? resolvedRefs.message;
  return {
    name: route.metadata.name,
    namespace: route.metadata.namespace,
    accepted: accepted.status,
    resolvedRefs: resolvedRefs.status,
    ...(message ? { message: message.slice(0, 1024) } : {}),
  };
}

/**
 * Whether `grants` (the ReferenceGrants of the Services' namespace) let HTTPRoutes of `routeNamespace` refer to
 * every Service in `services`: a grant from {gateway.networking.k8s.io, HTTPRoute, routeNamespace} to {core,
 * Service} naming each (or naming none).
 */
export function referenceGranted(
  grants: readonly ReferenceGrant[],
  routeNamespace: string,
  services: readonly string[],
): boolean {
  const fromRoutes = (grant: ReferenceGrant) =>
    (grant.spec?.from ?? []).some(
      (from) =>
        from.group === 'gateway.networking.k8s.io' &&
        from.kind === 'HTTPRoute' &&
        from.namespace === routeNamespace,
    );
  const toService = (grant: ReferenceGrant, service: string) =>
    (grant.spec?.to ?? []).some(
      (to) =>
        (to.group ?? '') === '' && to.kind === 'Service' && (to.name === undefined || to.name === service),
    );
  return services.every((service) => grants.some((grant) => fromRoutes(grant) && toService(grant, service)));
}
