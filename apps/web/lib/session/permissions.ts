import type { Identity } from '@ngx/nginx-api';

/**
 * Why this identity may not write Nginxes in `namespace` (every write: create, scale, edit, pause, roll back, delete),
 * as a sentence to show where the control would be; null when it may. The same rule the API applies: viewers read
 * only, and an editor or admin limited to some namespaces writes only there. With AUTHORIZATION=kubernetes the
 * server derives the role and the namespaces it may write in from the cluster's RBAC (`writableNamespaces`).
 */
export function writeRefusal(identity: Identity | undefined, namespace?: string): string | null {
  if (!identity) return 'You are not signed in.';
  const rbac = identity.authorization === 'kubernetes';
  if (identity.role === 'viewer')
    return rbac
      ? `Read-only: the cluster's RBAC does not let ${identity.name} patch Nginxes.`
      : `Read-only: ${identity.name} is a viewer. Changes need an editor or admin token.`;
  const writable =
    identity.writableNamespaces === undefined ? identity.namespaces : identity.writableNamespaces;
  if (namespace === undefined || writable === null || writable.includes(namespace)) return null;
  const allowed = writable.length ? writable.join(', ') : 'no namespace';
  return rbac
    ? `Read-only here: the cluster's RBAC lets ${identity.name} change Nginxes only in ${allowed}, not in ${namespace}.`
    : `Read-only here: ${identity.name} (${identity.role}) can change Nginxes only in ${allowed}, not in ${namespace}.`;
}

/** May this identity write Nginxes (in `namespace`, when given)? */
export const canWrite = (identity: Identity | undefined, namespace?: string): boolean =>
  writeRefusal(identity, namespace) === null;
