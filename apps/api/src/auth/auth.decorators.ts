import { SetMetadata } from '@nestjs/common';
import type { Role } from './roles.js';

export const PUBLIC = 'auth:public';
export const REQUIRED_ROLE = 'auth:role';

/** Open without a token (health, readiness, metrics). */
export const Public = () => SetMetadata(PUBLIC, true);

/** The least role a route needs; without it, reads need `viewer` and writes `editor`. */
export const RequiresRole = (role: Role) => SetMetadata(REQUIRED_ROLE, role);

export const NAMESPACE_SCOPED = 'auth:namespace-scoped';

/**
 * Routes about objects in a namespace, named by the `namespace` path parameter or query parameter (absent: all
 * namespaces). A token limited to some namespaces gets 403 elsewhere.
 */
export const NamespaceScoped = () => SetMetadata(NAMESPACE_SCOPED, true);
