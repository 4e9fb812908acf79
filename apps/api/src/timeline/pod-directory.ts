import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { DeletedFinalStateUnknown } from '@ngx/kube-runtime';
import { ClusterInformers, type PodObject } from '../kube/cluster-informers.js';

/** The Nginx a pod belongs to. */
export interface PodOwnerOf {
  nginx: string;
  nginxUid?: string;
}

/** How long a deleted pod is still known: its Events and the audit event of its delete come after it is gone. */
const REMEMBER_DELETED_MS = 15 * 60_000;
const NGINX_LABEL = 'mycompany.com/nginx';

/**
 * Which Nginx a pod belongs to, by namespace and name: the pod informer's pods (by their Nginx label and
 * controller reference), and pods deleted in the last 15 minutes, whose Events and delete audit events arrive after
 * they are gone.
 */
@Injectable()
export class PodDirectory implements OnApplicationBootstrap {
  private readonly deleted = new Map<string, PodOwnerOf & { until: number }>();

  constructor(@Inject(ClusterInformers) private readonly informers: ClusterInformers) {}

  onApplicationBootstrap(): void {
    this.informers.pods.addEventHandler({
      delete: (object) => {
        const pod = object instanceof DeletedFinalStateUnknown ? object.object : object;
        const owner = ownerOf(pod);
        const { namespace, name } = pod?.metadata ?? {};
        if (owner && namespace && name)
          this.deleted.set(`${namespace}/${name}`, { ...owner, until: Date.now() + REMEMBER_DELETED_MS });
        this.forgetExpired();
      },
    });
  }

  ownerOf(namespace: string, pod: string): PodOwnerOf | undefined {
    const live = this.informers.pods.cache.get(`${namespace}/${pod}`);
    if (live) return ownerOf(live);
    const gone = this.deleted.get(`${namespace}/${pod}`);
    return gone && gone.until > Date.now() ? { nginx: gone.nginx, nginxUid: gone.nginxUid } : undefined;
  }

  private forgetExpired(): void {
    const now = Date.now();
    for (const [key, entry] of this.deleted) {
      if (entry.until > now) break; // in insertion order, so in expiry order
      this.deleted.delete(key);
    }
  }
}

function ownerOf(pod: PodObject | undefined): PodOwnerOf | undefined {
  const nginx = pod?.metadata?.labels?.[NGINX_LABEL];
  if (!nginx) return undefined;
  const controller = pod?.metadata?.ownerReferences?.find((reference) => reference.controller);
  return { nginx, ...(controller?.uid ? { nginxUid: controller.uid } : {}) };
}
