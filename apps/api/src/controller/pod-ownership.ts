import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import { LABEL_NGINX, NGINX_KIND, type Nginx } from '@ngx/nginx-api';

/** The controller owner reference of a pod, if any. */
export function controllerOf(pod: V1Pod): V1OwnerReference | undefined {
  return pod.metadata?.ownerReferences?.find((ref) => ref.controller);
}

/**
 * The key of the Nginx a pod belongs to: by its controller owner reference when it has one (only if that is an
 * Nginx), otherwise by our label — the case of an orphan waiting to be adopted.
 */
export function owningNginxKey(pod: V1Pod): string | undefined {
  const namespace = pod.metadata?.namespace;
  if (!namespace) return undefined;
  const controller = controllerOf(pod);
  if (controller) return controller.kind === NGINX_KIND ? `${namespace}/${controller.name}` : undefined;
  const label = pod.metadata?.labels?.[LABEL_NGINX];
  return label ? `${namespace}/${label}` : undefined;
}

export interface ClaimedPods {
  /** Controlled by this Nginx and still carrying its label. */
  owned: V1Pod[];
  /** Carrying its label with no controller: to adopt. */
  orphans: V1Pod[];
  /** Controlled by this Nginx but relabelled to another one: to release. */
  mislabelled: V1Pod[];
}

/** How the pods found for an Nginx split, as the ReplicaSet controller claims them. Others' pods are ignored. */
export function claimPods(nginx: Nginx, pods: readonly V1Pod[]): ClaimedPods {
  const claimed: ClaimedPods = { owned: [], orphans: [], mislabelled: [] };
  for (const pod of pods) {
    const controller = controllerOf(pod);
    const labelled = pod.metadata?.labels?.[LABEL_NGINX] === nginx.metadata.name;
    if (!controller) {
      if (!pod.metadata?.deletionTimestamp && labelled) claimed.orphans.push(pod);
    } else if (controller.uid === nginx.metadata.uid) {
      if (labelled) claimed.owned.push(pod);
      else if (!pod.metadata?.deletionTimestamp) claimed.mislabelled.push(pod);
    }
  }
  return claimed;
}
