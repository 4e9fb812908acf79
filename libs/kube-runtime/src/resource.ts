/** Which collection of the API a request is about, e.g. pods in all namespaces or nginxes in `default`. */
export interface ResourceRef {
  /** '' for the core group (pods, events), otherwise e.g. 'mycompany.com'. */
  group: string;
  version: string;
  plural: string;
  /** Omit for all namespaces (or a cluster-scoped resource). */
  namespace?: string;
}

/** The collection's URL path, e.g. `/api/v1/namespaces/default/pods` or `/apis/mycompany.com/v1/nginxes`. */
export function collectionPath(resource: ResourceRef): string {
  const prefix = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
  const scope = resource.namespace ? `/namespaces/${encodeURIComponent(resource.namespace)}` : '';
  return `${prefix}${scope}/${resource.plural}`;
}

/** One object's path (`name` in the resource's namespace), with an optional subresource such as `status`. */
export function objectPath(
  resource: ResourceRef & { namespace?: string },
  name: string,
  subresource?: string,
): string {
  return `${collectionPath(resource)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}

export function describeResource(resource: ResourceRef): string {
  const groupVersion = resource.group ? `${resource.group}/${resource.version}` : resource.version;
  return `${resource.plural}.${groupVersion}${resource.namespace ? ` in ${resource.namespace}` : ''}`;
}
