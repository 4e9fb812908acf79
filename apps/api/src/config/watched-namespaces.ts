/**
 * Whether a process limited to `watched` (WATCH_NAMESPACE; undefined: the whole cluster) manages `namespace`. A
 * cluster-scoped request (no namespace) is within only an unlimited process.
 */
export function isWatched(watched: readonly string[] | undefined, namespace: string | undefined): boolean {
  return watched === undefined || (namespace !== undefined && watched.includes(namespace));
}

/** The refusal of a namespace outside `watched`: "this control plane watches only the namespace a" (or namespaces a, b). */
export function onlyWatchedMessage(watched: readonly string[] | undefined): string {
  const list = watched ?? [];
  return `this control plane watches only the ${list.length === 1 ? 'namespace' : 'namespaces'} ${list.join(', ')}`;
}
