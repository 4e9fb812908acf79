import type { V1Pod } from '@kubernetes/client-node';

/**
 * Pods that may have dropped out of the pod informer because their `mycompany.com/nginx` label was removed while
 * an Nginx still controls them. A label-filtered watch reports that as DELETED, carrying the pod as it was
 * before, so it looks like an immediate deletion; candidates are kept here by owner key and the owner's
 * reconcile checks each with one GET, releasing the ones that still exist.
 */
export class StrayPods {
  private readonly byOwner = new Map<string, Map<string, V1Pod>>();

  add(ownerKey: string, pod: V1Pod): void {
    const uid = pod.metadata?.uid;
    if (!uid) return;
    let pods = this.byOwner.get(ownerKey);
    if (!pods) this.byOwner.set(ownerKey, (pods = new Map()));
    pods.set(uid, pod);
  }

  /** The strays of one owner, handed over once. */
  take(ownerKey: string): V1Pod[] {
    const pods = this.byOwner.get(ownerKey);
    this.byOwner.delete(ownerKey);
    return pods ? [...pods.values()] : [];
  }

  forget(ownerKey: string): void {
    this.byOwner.delete(ownerKey);
  }
}
