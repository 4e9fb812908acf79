import type { KubeRequester } from './client.js';
import { collectionPath, type ResourceRef } from './resource.js';

const DIGITS = /^\d{1,30}$/;

/**
 * Whether resourceVersion `a` is at least `b`. Kubernetes calls resourceVersions opaque, but every API server
 * backed by etcd3 (all of them today) hands out etcd revisions: integers that grow with every write across the
 * cluster. Undefined when either is not such an integer, so a caller can fall back to not comparing.
 */
export function resourceVersionAtLeast(a: string, b: string): boolean | undefined {
  if (!DIGITS.test(a) || !DIGITS.test(b)) return undefined;
  return BigInt(a) >= BigInt(b);
}

/**
 * The resourceVersion of a consistent read: a LIST of `resource` with no resourceVersion and `limit=1`, which
 * kube-apiserver must answer with the most recent state (a quorum read from etcd, or its watch cache once that
 * has caught up with etcd's current revision). So every write stored before the request was made has a
 * resourceVersion at or below the answer's. etcd revisions are cluster-wide: the version orders writes to every
 * collection, not only `resource`'s. A cache that reflects it (`SharedInformer.catchUp`) misses none of them.
 */
export async function consistentResourceVersion(
  client: KubeRequester,
  resource: ResourceRef,
  signal?: AbortSignal,
): Promise<string> {
  const list = await client.request<{ metadata?: { resourceVersion?: string } }>({
    path: collectionPath(resource),
    query: { limit: 1 },
    signal,
  });
  const version = list?.metadata?.resourceVersion;
  if (!version) throw new Error(`the list of ${collectionPath(resource)} carried no resourceVersion`);
  return version;
}
