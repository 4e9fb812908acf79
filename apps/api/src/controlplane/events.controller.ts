import { Controller, Get, Inject, Param } from '@nestjs/common';
import type { CoreV1Event } from '@kubernetes/client-node';
import { isApiError, KubeClient } from '@ngx/kube-runtime';
import { NGINX_KIND, NGINX_PLURAL, type EventItem } from '@ngx/nginx-api';
import { NamespaceScoped } from '../auth/auth.decorators.js';
import { ClusterInformers } from '../kube/cluster-informers.js';
import { StatusException } from '../http/kube-status.js';
import { nameParam, namespaceParam } from '../http/path-params.js';
import { CONTROLPLANE_API_VERSION } from '../http/controlplane-api.js';

const time = (value: unknown): string | null =>
  value === undefined || value === null ? null : value instanceof Date ? value.toISOString() : String(value);

function eventItem(event: CoreV1Event): EventItem {
  const last = time(event.lastTimestamp) ?? time(event.eventTime) ?? time(event.metadata?.creationTimestamp);
  return {
    type: event.type ?? 'Normal',
    reason: event.reason ?? '',
    message: event.message ?? '',
    count: event.count ?? 1,
    firstTime: time(event.firstTimestamp) ?? last,
    lastTime: last,
    source: event.reportingComponent || event.source?.component || '',
  };
}

/**
 * `/controlplane/v1/namespaces/{ns}/nginxes/{name}/events`: the Kubernetes Events about one Nginx (the
 * controller's SuccessfulCreate, FailedCreate, …), newest first, read from the API server when asked for.
 */
@NamespaceScoped('path')
@Controller(CONTROLPLANE_API_VERSION)
export class EventsController {
  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(ClusterInformers) private readonly informers: ClusterInformers,
  ) {}

  @Get(`namespaces/:namespace/${NGINX_PLURAL}/:name/events`)
  async events(@Param('namespace') namespace: string, @Param('name') name: string) {
    const ns = namespaceParam(namespace);
    const nginx = this.informers.nginxes.cache.get(`${ns}/${nameParam(name)}`);
    const selector = nginx?.metadata.uid
      ? `involvedObject.uid=${nginx.metadata.uid}`
      : `involvedObject.kind=${NGINX_KIND},involvedObject.name=${name}`;
    try {
      const list = await this.client.request<{
        items: CoreV1Event[];
        metadata?: { resourceVersion?: string };
      }>({
        path: `/api/v1/namespaces/${ns}/events`,
        query: { fieldSelector: selector },
        priority: 'exempt', // a user's read, under the token's rate limit rather than the controller's QPS
      });
      const items = list.items
        .map(eventItem)
        .sort((a, b) => (b.lastTime ?? '').localeCompare(a.lastTime ?? ''));
      return {
        apiVersion: CONTROLPLANE_API_VERSION,
        kind: 'EventList',
        metadata: { resourceVersion: list.metadata?.resourceVersion },
        items,
      };
    } catch (error) {
      if (isApiError(error)) throw error;
      throw new StatusException(503, 'the Kubernetes API server is unavailable');
    }
  }
}
