/** The paths whose requests get a server span: the kube-style REST API and the control plane's own endpoints. */
const TRACED_ROOTS = new Set(['api', 'apis', 'controlplane']);

/** Segments before a kube-style path's resources: `/api/v1`, `/apis/GROUP/VERSION`, `/controlplane/v1`. */
const PREFIX_LENGTH: Record<string, number> = { api: 2, apis: 3, controlplane: 2 };

/** Whether a request to `path` (query excluded) is a REST request, traced with a server span. */
export function isTracedPath(path: string): boolean {
  return TRACED_ROOTS.has(path.split('/', 2)[1] ?? '');
}

/**
 * The route of a REST path with its names replaced by placeholders, for a span name of bounded cardinality
 * (OpenTelemetry's `http.route`): `/apis/mycompany.com/v1/namespaces/{namespace}/nginxes/{name}/status`. Past the
 * namespace (and after the group and version of a kube-style path), resources and names alternate
 * (`nginxes/{name}/pods/{id}/why`).
 */
export function restRoute(path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '');
  const prefix = Math.min(PREFIX_LENGTH[segments[0] ?? ''] ?? segments.length, segments.length);
  const route = segments.slice(0, prefix);
  let rest = segments.slice(prefix);
  const namespaced = rest[0] === 'namespaces' && rest.length > 1;
  if (namespaced) {
    route.push('namespaces', '{namespace}');
    rest = rest.slice(2);
  }
  // The control plane's own endpoints outside a namespace are fixed words (`whoami`, `audit/webhook`).
  if (!namespaced && segments[0] === 'controlplane') return `/${segments.join('/')}`;
  rest.forEach((segment, index) => route.push(index % 2 === 0 ? segment : index === 1 ? '{name}' : '{id}'));
  return `/${route.join('/')}`;
}

/** A reconcile's key, `namespace/name` (or `name` for a cluster-scoped object), as its two parts. */
export function keyParts(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}
