import type { V1Pod } from '@kubernetes/client-node';
import { controllerOf } from '../kube/pod-index.js';
import { isMislabelled } from './pod-ownership.js';

/**
 * Pods that may have dropped out of the pod informer because their labels stopped matching our watch's
 * selector while an Nginx still controls them. A label-filtered watch reports that as DELETED, carrying the pod
 * as it was before, so it looks like a deletion; only a GET can tell. Candidates are kept by owner key until
 * someone has looked: the owner's reconcile (which releases the real strays), or, on a standby, a periodic
 * recheck that drops the ones that turned out deleted or already released. A candidate is settled only once
 * it was looked at, so a failed GET never loses a relabelled pod.
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

  /** The candidates of one owner, still held until settled. */
  candidates(ownerKey: string): V1Pod[] {
    const pods = this.byOwner.get(ownerKey);
    return pods ? [...pods.values()] : [];
  }

  /** Every owner with candidates. */
  owners(): string[] {
    return [...this.byOwner.keys()];
  }

  /** The candidate was looked at (released, deleted, or back in the watch): forget it. */
  settle(ownerKey: string, uid: string): void {
    const pods = this.byOwner.get(ownerKey);
    if (!pods) return;
    pods.delete(uid);
    if (pods.size === 0) this.byOwner.delete(ownerKey);
  }

  /** The owner is gone: its candidates no longer matter (the garbage collector has the rest). */
  forget(ownerKey: string): void {
    this.byOwner.delete(ownerKey);
  }

  /**
   * Looks at every candidate again with `get` (the pod as the API server has it now; undefined when it is gone)
   * and settles the ones that are not strays: gone, replaced by another pod of the name, released, or matching
   * their Nginx's selector again. A failing `get` keeps its candidate. For a standby, whose record no reconcile
   * drains: what stays is exactly what the next leader must release.
   */
  async recheck(get: (candidate: V1Pod) => Promise<V1Pod | undefined>): Promise<void> {
    for (const [owner, pods] of [...this.byOwner])
      for (const candidate of [...pods.values()]) {
        let current: V1Pod | undefined;
        try {
          current = await get(candidate);
        } catch {
          continue;
        }
        const controller = controllerOf(candidate);
        const stray =
          current?.metadata?.uid === candidate.metadata?.uid &&
          controller !== undefined &&
          isMislabelled(current!, controller.uid, controller.name);
        if (!stray) this.settle(owner, candidate.metadata!.uid!);
      }
  }

  get size(): number {
    let total = 0;
    for (const pods of this.byOwner.values()) total += pods.size;
    return total;
  }
}
