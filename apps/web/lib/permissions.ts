import type { Identity } from '@ngx/nginx-api';

/**
 * Why this identity may not write Nginxes in `namespace` (every write: create, scale, edit, pause, roll back, delete),
 * as a sentence to show where the control would be; null when it may. The same rule the API applies: viewers read
 * only, and an editor or admin limited to some namespaces writes only there.
 */
export function writeRefusal(identity: Identity | undefined, namespace?: string): string | null {
  if (!identity) return 'You are not signed in.';
  if (identity.role === 'viewer')
    return `Read-only: ${identity.name} is a viewer. Changes need an editor or admin token.`;
  if (namespace === undefined || identity.namespaces === null || identity.namespaces.includes(namespace))
    return null;
  const allowed = identity.namespaces.length ? identity.namespaces.join(', ') : 'no namespace';
  return `Read-only here: ${identity.name} (${identity.role}) can change Nginxes only in ${allowed}, not in ${namespace}.`;
}

/** May this identity write Nginxes (in `namespace`, when given)? */
export const canWrite = (identity: Identity | undefined, namespace?: string): boolean =>
  writeRefusal(identity, namespace) === null;
