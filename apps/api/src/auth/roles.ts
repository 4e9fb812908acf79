import type { Identity } from './identity.js';

/** What a token may do: `viewer` reads, watches and reads the audit; `editor` also writes Nginxes; `admin` all. */
export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return ROLES.includes(value as Role);
}

/** True when `role` includes the rights of `needed`. */
export function allows(role: Role, needed: Role): boolean {
  return ROLES.indexOf(role) >= ROLES.indexOf(needed);
}

/** A role held in some namespaces, or in all of them. */
export interface Grant {
  role: Role;
  /** The namespaces the grant is limited to; all of them when absent. */
  namespaces?: readonly string[];
}

/**
 * Who made a request: the token's name (never the token itself) or the person's username, the highest role it
 * holds and where it holds any. A static token holds that one role there; an identity named by a policy may hold
 * different roles in different namespaces (`grants`), and is allowed what any of its grants allows.
 */
export interface Caller {
  name: string;
  role: Role;
  /** The namespaces it is limited to; undefined for all of them. */
  namespaces?: readonly string[];
  /** Its roles namespace by namespace, when they differ; absent: `role` in `namespaces`. */
  grants?: readonly Grant[];
  /** Who the identity provider, the cluster or the token file says it is (absent for a token file's token). */
  identity?: Identity;
  /**
   * Set when the cluster's RBAC decides what this caller may do (AUTHORIZATION=kubernetes), request by request:
   * then `role` means nothing and `grants` is empty, so any check of our roles refuses it rather than allow.
   */
  rbac?: true;
}

/** A caller whose every request the cluster's RBAC decides (AUTHORIZATION=kubernetes): it holds none of our roles. */
export function rbacCaller(name: string, identity?: Identity): Caller {
  return { name, role: 'viewer', grants: [], rbac: true, ...(identity ? { identity } : {}) };
}

/** `caller`'s grants: its own, or its one role where it may act. */
export function grantsOf(caller: Caller): readonly Grant[] {
  if (caller.grants) return caller.grants;
  return [caller.namespaces ? { role: caller.role, namespaces: caller.namespaces } : { role: caller.role }];
}

/** Whether `grants` allow a request needing `needed` in `namespace` (undefined: all namespaces at once). */
export function grantsAllow(grants: readonly Grant[], needed: Role, namespace: string | undefined): boolean {
  return grants.some(
    (grant) =>
      allows(grant.role, needed) &&
      (grant.namespaces === undefined || (namespace !== undefined && grant.namespaces.includes(namespace))),
  );
}

/**
 * A caller holding `grants` (a policy's, for an identity): its role the highest of them, its namespaces all of
 * them unless one grant holds everywhere. Undefined when it holds nothing.
 */
export function callerWithGrants(
  name: string,
  grants: readonly Grant[],
  identity?: Identity,
): Caller | undefined {
  if (grants.length === 0) return undefined;
  const role = grants.reduce<Role>((best, grant) => (allows(grant.role, best) ? grant.role : best), 'viewer');
  const everywhere = grants.some((grant) => grant.namespaces === undefined);
  const namespaces = everywhere
    ? undefined
    : [...new Set(grants.flatMap((grant) => grant.namespaces!))].sort();
  return {
    name,
    role,
    ...(namespaces ? { namespaces } : {}),
    ...(grants.length > 1 ? { grants } : {}),
    ...(identity ? { identity } : {}),
  };
}

/**
 * Whether `caller` may see or act in `namespace`; `undefined` means every namespace at once (a cluster-wide list
 * or watch), which only an unlimited token may.
 */
export function mayAccessNamespace(caller: Caller, namespace: string | undefined): boolean {
  return grantsAllow(grantsOf(caller), 'viewer', namespace);
}

/**
 * Why `caller` may not make a request that needs `needed`, in `scope` when the route names a namespace (its
 * `namespace`, undefined for all of them), or undefined when it may. The one check of a request's caller: the
 * bearer guard answers each reason with its 403, the relayed-read lane leaves any of them to the guard.
 */
export function accessRefusal(
  caller: Caller,
  needed: Role,
  scope?: { namespace: string | undefined },
): 'role' | 'namespace' | undefined {
  const grants = grantsOf(caller);
  if (!grants.some((grant) => allows(grant.role, needed))) return 'role';
  if (scope && !grantsAllow(grants, needed, scope.namespace)) return 'namespace';
  return undefined;
}

/** The verbs our REST API serves on Nginxes, as Kubernetes names them. */
const READ_VERBS = new Set(['get', 'list', 'watch']);
const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);

/**
 * The least role a request on Nginxes needs: reads a viewer, writes an editor, writes of `status` (which belongs to
 * the controller) an admin. Undefined for a verb the control plane does not serve. The one place these rules
 * live: the REST layer enforces them, and SelfSubjectAccessReview reports them.
 */
export function roleNeeded(verb: string, subresource: string | undefined): Role | undefined {
  if (READ_VERBS.has(verb)) return 'viewer';
  if (!WRITE_VERBS.has(verb)) return undefined;
  return subresource === 'status' ? 'admin' : 'editor';
}
