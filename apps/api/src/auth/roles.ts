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

/** Who made a request: the token's name (never the token itself), its role, and where it may act. */
export interface Caller {
  name: string;
  role: Role;
  /** The namespaces the token is limited to; undefined for all of them. */
  namespaces?: readonly string[];
}

/**
 * Whether `caller` may see or act in `namespace`; `undefined` means every namespace at once (a cluster-wide list
 * or watch), which only an unlimited token may.
 */
export function mayAccessNamespace(caller: Caller, namespace: string | undefined): boolean {
  if (!caller.namespaces) return true;
  return namespace !== undefined && caller.namespaces.includes(namespace);
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
  if (!allows(caller.role, needed)) return 'role';
  if (scope && !mayAccessNamespace(caller, scope.namespace)) return 'namespace';
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
