import type { IncomingHttpHeaders } from 'node:http';
import { NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION, namespaceError, objectNameError } from '@ngx/nginx-api';

/** A relayed read RelayedReadLane answers: one Nginx, or the Nginxes of one namespace. */
export interface RelayedRead {
  namespace: string;
  name?: string;
}

const NAMESPACES = `/apis/${NGINX_GROUP}/${NGINX_VERSION}/namespaces/`;

/**
 * The relayed read a request is, when it is one that needs nothing Express and Nest give: a GET of one Nginx or
 * of a namespace's Nginxes with no query at all (a consistent read, which is relayed whatever the cache holds;
 * any parameter goes through the checks of kubeQuery), path segments that are valid names as they stand (nothing
 * to decode), and no `Origin` header (CORS stays with Express). Anything else is undefined and left to Express's
 * routes, which answer it as before, refusals included.
 */
export function relayedReadOf(request: {
  method?: string;
  url?: string;
  headers: IncomingHttpHeaders;
}): RelayedRead | undefined {
  const { method, url, headers } = request;
  if (method !== 'GET' || !url?.startsWith(NAMESPACES) || headers.origin !== undefined) return undefined;
  const rest = url.slice(NAMESPACES.length);
  if (rest.includes('?') || rest.includes('%')) return undefined;
  const [namespace, plural, name, ...more] = rest.split('/');
  if (plural !== NGINX_PLURAL || more.length > 0 || namespaceError(namespace!) !== undefined)
    return undefined;
  if (name === undefined) return { namespace: namespace! };
  return objectNameError(name) === undefined ? { namespace: namespace!, name } : undefined;
}
