import { collectionPath, objectPath } from '@ngx/kube-runtime';
import { NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION } from '@ngx/nginx-api';

/** The subresources the Nginx CRD serves. */
export const SUBRESOURCES = ['status', 'scale'] as const;
export type Subresource = (typeof SUBRESOURCES)[number];

/** The API server's path for Nginx objects: all of them, one namespace's, or one object (and subresource). */
export function nginxPath(namespace?: string, name?: string, subresource?: Subresource): string {
  const resource = { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL, namespace };
  return name === undefined ? collectionPath(resource) : objectPath(resource, name, subresource);
}
