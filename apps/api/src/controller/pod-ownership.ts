import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import { LABEL_NGINX, NGINX_KIND, type Nginx } from '@ngx/nginx-api';
import { podSelector } from './pod-template.js';

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

/** Whether the pod's labels match the selector an Nginx publishes in `status.selector` (every label of it). */
export function matchesSelector(pod: V1Pod, nginxName: string): boolean {
  const labels = pod.metadata?.labels ?? {};
  return Object.entries(podSelector(nginxName)).every(
    ([key, value]) => Object.hasOwn(labels, key) && labels[key] === value,
  );
}

/**
 * A pod the Nginx (`ownerUid`, `ownerName`) controls though its labels no longer match the Nginx's selector,
 * and that is not on its way out: it must be released, not counted.
 */
export function isMislabelled(pod: V1Pod, ownerUid: string, ownerName: string): boolean {
  return (
    controllerOf(pod)?.uid === ownerUid &&
    !matchesSelector(pod, ownerName) &&
    !pod.metadata?.deletionTimestamp
  );
}

export interface ClaimedPods {
  /** Controlled by this Nginx and matching its selector. */
  owned: V1Pod[];
  /** Matching its selector with no controller, not being deleted: to adopt. */
  orphans: V1Pod[];
  /** Controlled by this Nginx but no longer matching its selector: to release. */
  mislabelled: V1Pod[];
}

/**
 * How the pods found for an Nginx split, as the ReplicaSet controller claims them, with the full selector that
 * `status.selector` publishes. Pods another controller owns are ignored.
 */
export function claimPods(nginx: Nginx, pods: readonly V1Pod[]): ClaimedPods {
  const claimed: ClaimedPods = { owned: [], orphans: [], mislabelled: [] };
  const { name, uid } = nginx.metadata;
  for (const pod of pods) {
    const controller = controllerOf(pod);
    const matches = matchesSelector(pod, name!);
    if (!controller) {
      if (matches && !pod.metadata?.deletionTimestamp) claimed.orphans.push(pod);
    } else if (controller.uid === uid) {
      if (matches) claimed.owned.push(pod);
      else if (!pod.metadata?.deletionTimestamp) claimed.mislabelled.push(pod);
    }
  }
  return claimed;
}
