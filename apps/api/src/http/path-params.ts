import { namespaceError, objectNameError } from '@ngx/nginx-api';
import { StatusException } from './kube-status.js';

function checked(value: string, field: string, problem: string | undefined): string {
  if (problem === undefined) return value;
  throw new StatusException(
    400,
    `${field === 'metadata.namespace' ? 'namespace' : 'name'} "${printable(value)}" is invalid: ${problem}`,
    {
      causes: [{ reason: 'FieldValueInvalid', field, message: problem }],
    },
  );
}

/**
 * Checks a namespace from the path (a DNS-1123 label, ≤ 63). Rejecting here also keeps `..`, encoded slashes
 * and control characters from ever reaching the API server's URL.
 */
export function namespaceParam(value: string): string {
  return checked(value, 'metadata.namespace', namespaceError(value));
}

/** Checks an object name from the path (a DNS-1123 subdomain, ≤ 253). */
export function nameParam(value: string): string {
  return checked(value, 'metadata.name', objectNameError(value));
}

/** The value with control characters escaped and its length capped, safe to echo in a message. */
export function printable(value: string): string {
  const escaped = JSON.stringify(value.slice(0, 80)).slice(1, -1);
  return value.length > 80 ? `${escaped}…` : escaped;
}
