import type { V1Pod } from '@kubernetes/client-node';
import type { Nginx } from '@ngx/nginx-api';
import { controllerOf } from '../kube/pod-index.js';
import { podSelector } from './pod-builder.js';

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
