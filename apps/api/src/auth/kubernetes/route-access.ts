import type { NamespaceSource } from '../auth.decorators.js';
import type { NginxAccess } from './subject-access-reviews.js';

/** What the bearer guard knows of a request when it authorizes it by the cluster's RBAC. */
export interface RouteRequest {
  method: string;
  /** Where the route names its namespace (NamespaceScoped); undefined for routes about no namespace's objects. */
  source: NamespaceSource | undefined;
  /** The namespace named there; undefined for all of them. */
  namespace: string | undefined;
  /** The route's `:name` and `:subresource` path parameters, when it has them. */
  name: string | undefined;
  subresource: string | undefined;
  /** `watch=true` (or 1) in the query. */
  watch: boolean;
  /** The handler asks itself, once it knows the whole write (HandlerAuthorizes), so a refusal is audited. */
  handlerAuthorizes: boolean;
}

const WRITE_VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'patch' };

/**
 * What the cluster must allow on Nginxes for a route, as kube-apiserver would ask for the same request; undefined
 * when being signed in is enough here (discovery, whoami and the self reviews, which kube-apiserver allows every
 * authenticated user too) or the handler asks. Reads of one Nginx's views (its pods, Events, revisions, timeline)
 * need `get` on that Nginx; an audit list needs `list` on Nginxes in its namespace, or cluster-wide without one.
 */
export function routeAccess(route: RouteRequest): NginxAccess | undefined {
  if (route.handlerAuthorizes || route.source === undefined) return undefined;
  const { namespace, name } = route;
  const scope = namespace === undefined ? {} : { namespace };
  if (route.source === 'query') return { verb: 'list', ...scope };
  const read = route.method === 'GET' || route.method === 'HEAD';
  const verb = read
    ? name === undefined
      ? route.watch
        ? 'watch'
        : 'list'
      : 'get'
    : (WRITE_VERBS[route.method] ?? (name === undefined ? 'deletecollection' : 'delete'));
  return {
    verb,
    ...scope,
    ...(name !== undefined ? { name } : {}),
    ...(route.subresource !== undefined ? { subresource: route.subresource } : {}),
  };
}
