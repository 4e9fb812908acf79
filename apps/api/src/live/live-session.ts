import { randomUUID } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import { objectKey } from '@ngx/kube-runtime';
import type { ChangeType, LiveChange, LivePod, Nginx, Snapshot, SubscriptionRequest } from '@ngx/nginx-api';
import { byCreation, podView } from '../controlplane/pod-view.js';
import type { ClusterInformers } from '../kube/cluster-informers.js';
import { owningNginxKey, PODS_BY_NGINX } from '../kube/pod-index.js';
import { ChangeCoalescer } from './change-coalescer.js';

/**
 * A pod's change as the gateway hands it to every session: its owning Nginx looked up once, and its view made
 * at most once (by the first session that wants it), not once per connected client.
 */
export class PodChange {
  readonly owner: string | undefined;
  private view: LivePod | undefined;

  constructor(readonly pod: V1Pod) {
    this.owner = owningNginxKey(pod);
  }

  get podView(): LivePod {
    return (this.view ??= podView(this.pod));
  }
}

interface Subscription {
  id: string;
  request: SubscriptionRequest;
  /** For an `nginx` subscription, its Nginx's `namespace/name`. */
  nginxKey?: string;
}

/**
 * One connected client's subscriptions: the snapshot each starts with, and the cache changes that concern it,
 * coalesced per object before they go out (see ChangeCoalescer).
 */
export class LiveSession {
  private readonly subscriptions = new Map<string, Subscription>();
  /** The ids of `nginx` subscriptions by their Nginx's key: a pod's change looks up its owner's, nothing else. */
  private readonly podSubscriptions = new Map<string, string[]>();
  private readonly coalescer: ChangeCoalescer<LiveChange>;

  constructor(
    private readonly informers: ClusterInformers,
    emit: (changes: LiveChange[]) => void,
    ready: () => boolean,
    intervalMs?: number,
  ) {
    this.coalescer = new ChangeCoalescer<LiveChange>(emit, ready, intervalMs);
  }

  get size(): number {
    return this.subscriptions.size;
  }

  subscribe(request: SubscriptionRequest): Snapshot {
    const id = randomUUID();
    const cache = this.informers.nginxes.cache;
    if (request.scope === 'namespace') {
      this.subscriptions.set(id, { id, request });
      const nginxes = request.namespace ? cache.byIndex('namespace', request.namespace) : cache.list();
      return { subscription: id, resourceVersion: this.informers.nginxes.lastSyncResourceVersion, nginxes };
    }
    const key = `${request.namespace}/${request.name}`;
    this.subscriptions.set(id, { id, request, nginxKey: key });
    this.podSubscriptions.set(key, [...(this.podSubscriptions.get(key) ?? []), id]);
    const nginx = cache.get(key);
    const now = Date.now();
    const pods = this.informers.pods.cache
      .byIndex(PODS_BY_NGINX, key)
      .map((pod) => podView(pod, now))
      .sort(byCreation);
    return {
      subscription: id,
      resourceVersion: this.informers.pods.lastSyncResourceVersion,
      nginxes: nginx ? [nginx] : [],
      pods,
    };
  }

  unsubscribe(id: string): boolean {
    const nginxKey = this.subscriptions.get(id)?.nginxKey;
    if (nginxKey !== undefined) {
      const left = this.podSubscriptions.get(nginxKey)?.filter((other) => other !== id) ?? [];
      if (left.length > 0) this.podSubscriptions.set(nginxKey, left);
      else this.podSubscriptions.delete(nginxKey);
    }
    const known = this.subscriptions.delete(id);
    this.coalescer.discard((key) => key.startsWith(`${id}|`));
    return known;
  }

  /** An Nginx changed in the cache. */
  nginxChanged(type: ChangeType, nginx: Nginx): void {
    const key = objectKey(nginx);
    for (const { id, request, nginxKey } of this.subscriptions.values()) {
      const wanted =
        request.scope === 'namespace'
          ? !request.namespace || request.namespace === nginx.metadata.namespace
          : key === nginxKey;
      if (wanted)
        this.coalescer.offer(`${id}|nginx|${key}`, { subscription: id, kind: 'nginx', type, object: nginx });
    }
  }

  /** A pod of ours changed in the cache. */
  podChanged(type: ChangeType, change: PodChange): void {
    const ids = change.owner === undefined ? undefined : this.podSubscriptions.get(change.owner);
    if (!ids) return;
    for (const id of ids) {
      const view = change.podView;
      this.coalescer.offer(`${id}|pod|${view.uid}`, { subscription: id, kind: 'pod', type, object: view });
    }
  }

  close(): void {
    this.subscriptions.clear();
    this.podSubscriptions.clear();
    this.coalescer.close();
  }
}
