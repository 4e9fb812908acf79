import type { NginxAccess } from './subject-access-reviews.js';

/** At most this many namespaces are asked about for one whoami (two SubjectAccessReviews each, kept briefly). */
export const MAX_NAMESPACES_ASKED = 100;

/** What the UI needs to know of a caller's rights, as the cluster's RBAC answers them. */
export interface ClusterPermissions {
  /** `editor` when it may patch Nginxes anywhere; `viewer` otherwise. */
  role: 'viewer' | 'editor';
  /** Where it may list Nginxes: null for every namespace (it may list them cluster-wide). */
  namespaces: string[] | null;
  /** Where it may patch Nginxes: null for every namespace. */
  writableNamespaces: string[] | null;
}

/**
 * The caller's rights on Nginxes, from the cluster's RBAC (`allowed`: one SubjectAccessReview): may it list and
 * patch them cluster-wide, and where not, in which of `candidates` (the namespaces the control plane knows of; at
 * most MAX_NAMESPACES_ASKED of them). The same answers the requests themselves are authorized by, so the UI
 * offers what the API then allows. Rejects when kube-apiserver cannot be asked.
 */
export async function clusterPermissions(
  allowed: (access: NginxAccess) => Promise<boolean>,
  candidates: readonly string[],
): Promise<ClusterPermissions> {
  const asked = [...new Set(candidates)].sort().slice(0, MAX_NAMESPACES_ASKED);
  const where = async (verb: string): Promise<string[] | null> => {
    if (await allowed({ verb })) return null;
    const answers = await Promise.all(asked.map((namespace) => allowed({ verb, namespace })));
    return asked.filter((_, i) => answers[i]);
  };
  const [namespaces, writableNamespaces] = await Promise.all([where('list'), where('patch')]);
  const writes = writableNamespaces === null || writableNamespaces.length > 0;
  return { role: writes ? 'editor' : 'viewer', namespaces, writableNamespaces };
}
