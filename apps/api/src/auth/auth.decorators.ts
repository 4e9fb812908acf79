import { applyDecorators, SetMetadata } from '@nestjs/common';
import type { Role } from './roles.js';

export const PUBLIC = 'auth:public';
export const REQUIRED_ROLE = 'auth:role';

/** Open without a token (health, readiness, metrics). */
export const Public = () => SetMetadata(PUBLIC, true);

export const UNMETERED = 'auth:unmetered';

/** Spends no request budget: only for answers that cost nothing (the liveness probe). */
export const Unmetered = () => SetMetadata(UNMETERED, true);

/** The least role a route needs; without it, reads need `viewer` and writes `editor`. */
export const RequiresRole = (role: Role) => SetMetadata(REQUIRED_ROLE, role);

export const HANDLER_AUTHORIZES = 'auth:handler-authorizes';

/**
 * Writes whose handler authorizes them itself, once it knows the whole write, so that a refusal is recorded in
 * the change audit: the guard admits any signed-in caller (with our roles, any role: `viewer`; with the cluster's
 * RBAC, no SubjectAccessReview) and the handler asks.
 */
export const HandlerAuthorizes = () =>
  applyDecorators(SetMetadata(REQUIRED_ROLE, 'viewer'), SetMetadata(HANDLER_AUTHORIZES, true));

export const NAMESPACE_SCOPED = 'auth:namespace-scoped';

/**
 * Where a namespace-scoped route names its namespace: `path`, the `:namespace` path parameter (a route without
 * one covers every namespace, as `/apis/mycompany.com/v1/nginxes` does); `query`, the `namespace` query
 * parameter, which the handler then filters by (the audit lists). The guard reads exactly that, and nothing
 * else: a namespace given in the query string of a path-scoped route is ignored by its handler, so it must not
 * vouch for the request either.
 */
export type NamespaceSource = 'path' | 'query';

/**
 * Routes about objects in a namespace. A token limited to some namespaces may use them only for one of those
 * namespaces, named where `source` says; anything else, all namespaces at once included, is 403.
 */
export const NamespaceScoped = (source: NamespaceSource) => SetMetadata(NAMESPACE_SCOPED, source);
