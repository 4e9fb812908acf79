import { Controller, Get, Inject, Param } from '@nestjs/common';
import { NGINX_GROUP, NGINX_PLURAL } from '@ngx/nginx-api';
import { NamespaceScoped } from '../auth/auth.decorators.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { PODS_BY_NGINX } from '../kube/pod-index.js';
import { notFound, StatusException } from '../http/kube-status.js';
import { nameParam, namespaceParam } from '../http/path-params.js';
import { byCreation, podView } from './pod-view.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';
import { onlyWatchedMessage } from '../config/watched-namespaces.js';

/**
 * `/controlplane/v1/namespaces/{ns}/nginxes/{name}/pods`: the pods of one Nginx as the UI shows them, from the
 * controller's pod cache (pods it owns or that carry its label), with the cache's resourceVersion.
 */
@NamespaceScoped('path')
@Controller(CONTROLPLANE_API_VERSION)
export class PodsController {
  constructor(@Inject(ClusterInformers) private readonly informers: ClusterInformers) {}

  @Get(`namespaces/:namespace/${NGINX_PLURAL}/:name/pods`)
  pods(@Param('namespace') namespace: string, @Param('name') name: string) {
    const key = `${namespaceParam(namespace)}/${nameParam(name)}`;
    if (!this.informers.watches(namespace))
      throw new StatusException(400, onlyWatchedMessage(this.informers.namespaces));
    if (!this.informers.hasSynced())
      throw new StatusException(503, 'the pod cache is still syncing; retry shortly', {
        retryAfterSeconds: 1,
      });
    const nginx = this.informers.nginxes.cache.get(key);
    if (!nginx) throw notFound({ group: NGINX_GROUP, plural: NGINX_PLURAL }, name);
    const now = Date.now();
    const items = this.informers.pods.cache
      .byIndex(PODS_BY_NGINX, key)
      .filter(
        (pod) =>
          !pod.metadata?.ownerReferences?.some((ref) => ref.controller && ref.uid !== nginx.metadata.uid),
      )
      .map((pod) => podView(pod, now))
      .sort(byCreation);
    return {
      apiVersion: CONTROLPLANE_API_VERSION,
      kind: 'PodList',
      metadata: { resourceVersion: this.informers.pods.lastSyncResourceVersion },
      nginx: { namespace: nginx.metadata.namespace, name: nginx.metadata.name, uid: nginx.metadata.uid },
      items,
    };
  }
}
