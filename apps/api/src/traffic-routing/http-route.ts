/**
 * The parts of Gateway API's HTTPRoute (gateway.networking.k8s.io/v1) the canary reads and writes. Everything else
 * in a route is carried through untouched as unknown keys: a rule is rewritten from the route as read, never rebuilt.
 */
export const HTTP_ROUTES = { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes' };
export const REFERENCE_GRANTS = {
  group: 'gateway.networking.k8s.io',
  version: 'v1',
  plural: 'referencegrants',
};

export interface BackendRef {
  group?: string;
  kind?: string;
  name: string;
  namespace?: string;
  port?: number;
  weight?: number;
  [other: string]: unknown;
}

export interface HeaderMatch {
  type?: 'Exact' | 'RegularExpression';
  name: string;
  value: string;
}

export interface RouteMatch {
  headers?: HeaderMatch[];
  [other: string]: unknown;
}

export interface RouteRule {
  name?: string;
  matches?: RouteMatch[];
  backendRefs?: BackendRef[];
  [other: string]: unknown;
}

export interface RouteCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

export interface HTTPRoute {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string; [other: string]: unknown };
  spec?: { rules?: RouteRule[]; [other: string]: unknown };
  status?: { parents?: { parentRef?: unknown; conditions?: RouteCondition[] }[] };
}

export interface ReferenceGrant {
  metadata: { name: string; namespace: string };
  spec?: {
    from?: { group?: string; kind?: string; namespace?: string }[];
    to?: { group?: string; kind?: string; name?: string }[];
  };
}
