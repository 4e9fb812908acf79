import { randomUUID } from 'node:crypto';
import type { V1Pod } from '@kubernetes/client-node';
import { objectKey } from '@ngx/kube-runtime';
import type { ChangeType, LiveChange, Nginx, Snapshot, SubscriptionRequest } from '@ngx/nginx-api';
import { byCreation, podView, type PodView } from '../controlplane/pod-view.js';
import type { ClusterInformers } from '../kube/cluster-informers.js';
import { owningNginxKey, PODS_BY_NGINX } from '../kube/pod-index.js';
import { ChangeCoalescer } from './change-coalescer.js';

/**
 * A pod's change as the gateway hands it to every session: its owning Nginx looked up once, and its view made
 * at most once (by the first session that wants it), not once per connected client.
 */
export class PodChange {
  readonly owner: string | undefined;
  private view: PodView | undefined;

  constructor(readonly pod: V1Pod) {
    this.owner = owningNginxKey(pod);
  }

  get podView(): PodView {
    return (this.view ??= podView(this.pod));
  }
}

interface Subscription {
  id: string;
  request: SubscriptionRequest;
}

/**
 * One connected client's subscriptions: the snapshot each starts with, and the cache changes that concern it,
 * coalesced per object before they go out (see ChangeCoalescer).
 */
export class LiveSession {
  private readonly subscriptions = new Map<string, Subscription>();
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
    this.subscriptions.set(id, { id, request });
    const cache = this.informers.nginxes.cache;
    if (request.scope === 'namespace') {
      const nginxes = request.namespace ? cache.byIndex('namespace', request.namespace) : cache.list();
      return { subscription: id, resourceVersion: this.informers.nginxes.lastSyncResourceVersion, nginxes };
    }
    const key = `${request.namespace}/${request.name}`;
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
    const known = this.subscriptions.delete(id);
    this.coalescer.discard((key) => key.startsWith(`${id}|`));
    return known;
  }

  /** An Nginx changed in the cache. */
  nginxChanged(type: ChangeType, nginx: Nginx): void {
    const key = objectKey(nginx);
    for (const { id, request } of this.subscriptions.values()) {
      const wanted =
        request.scope === 'namespace'
          ? !request.namespace || request.namespace === nginx.metadata.namespace
          : key === `${request.namespace}/${request.name}`;
      if (wanted)
        this.coalescer.offer(`${id}|nginx|${key}`, { subscription: id, kind: 'nginx', type, object: nginx });
    }
  }

  /** A pod of ours changed in the cache. */
  podChanged(type: ChangeType, change: PodChange): void {
    const { owner } = change;
    if (!owner) return;
    for (const { id, request } of this.subscriptions.values()) {
      if (request.scope !== 'nginx' || owner !== `${request.namespace}/${request.name}`) continue;
      const view = change.podView;
      this.coalescer.offer(`${id}|pod|${view.uid}`, { subscription: id, kind: 'pod', type, object: view });
    }
  }

  close(): void {
    this.subscriptions.clear();
    this.coalescer.close();
  }
}
