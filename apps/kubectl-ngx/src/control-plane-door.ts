import { KubeApiError, type KubeClient, type KubeStatus } from '@ngx/kube-runtime';
import { createInterface } from 'node:readline';
import {
  CONTROLPLANE_API_VERSION,
  NGINX_PLURAL,
  type Nginx,
  type PodWhy,
  type RevisionList,
  type TimelineItem,
  type TimelineList,
} from '@ngx/nginx-api';
import { readNginx } from './nginx-client.js';
import type { History, NginxDoor, TimelinePage } from './nginx-door.js';

/** One line of a timeline watch. */
type TimelineEvent =
  | { type: 'ADDED' | 'MODIFIED'; object: TimelineItem }
  | { type: 'BOOKMARK'; object: { metadata?: { resourceVersion?: string } } }
  | { type: 'ERROR'; object: KubeStatus };

/** Pages read at most for one timeline (500 entries each). */
const MAX_TIMELINE_PAGES = 20;

/** Requests made through the control plane's endpoints, which decide them and record who asked. */
export class ControlPlaneDoor implements NginxDoor {
  constructor(private readonly client: KubeClient) {}

  promote(namespace: string, name: string, full: boolean): Promise<Nginx> {
    return this.client.request<Nginx>({
      method: 'POST',
      path: `${this.base(namespace, name)}/promote`,
      ...(full ? { query: { full: 'true' } } : {}),
    });
  }

  abort(namespace: string, name: string): Promise<Nginx> {
    return this.client.request<Nginx>({ method: 'POST', path: `${this.base(namespace, name)}/abort` });
  }

  async history(namespace: string, name: string): Promise<History> {
    const list = await this.client.request<RevisionList>({ path: `${this.base(namespace, name)}/revisions` });
    // The Nginx as the list was read: a rollback is conditioned on it.
    const nginx = await readNginx(this.client, namespace, name);
    if (nginx.metadata.resourceVersion !== list.nginx.resourceVersion)
      nginx.metadata.resourceVersion = list.nginx.resourceVersion;
    return { nginx, items: list.items };
  }

  rollback(namespace: string, name: string, revision: number, read: Nginx): Promise<Nginx> {
    return this.client.request<Nginx>({
      method: 'POST',
      path: `${this.base(namespace, name)}/revisions/${revision}/rollback`,
      body: { resourceVersion: read.metadata.resourceVersion },
    });
  }

  async timeline(namespace: string, name: string, since: Date | undefined): Promise<TimelinePage> {
    const items: TimelineItem[] = [];
    let resourceVersion = '';
    let next: string | undefined;
    for (let page = 0; page < MAX_TIMELINE_PAGES; page++) {
      const list = await this.client.request<TimelineList>({
        path: `${this.base(namespace, name)}/timeline`,
        query: {
          limit: 500,
          ...(since ? { since: since.toISOString() } : {}),
          ...(next ? { continue: next } : {}),
        },
      });
      if (page === 0) resourceVersion = list.metadata.resourceVersion ?? '';
      items.push(...list.items);
      next = list.metadata.continue;
      if (!next) break;
    }
    return { items, resourceVersion };
  }

  async followTimeline(
    namespace: string,
    name: string,
    from: string,
    seen: (item: TimelineItem) => void,
    signal: AbortSignal,
  ): Promise<void> {
    let resourceVersion = from;
    while (!signal.aborted) {
      const response = await this.client.stream({
        path: `${this.base(namespace, name)}/timeline`,
        query: { watch: 'true', ...(resourceVersion ? { resourceVersion } : {}) },
        signal,
        timeoutMs: null,
      });
      try {
        // A timeline watch's objects are entries, not Kubernetes objects: read its lines as they are.
        for await (const line of createInterface({ input: response, crlfDelay: Infinity })) {
          if (!line.trim()) continue;
          const event = JSON.parse(line) as TimelineEvent;
          if (event.type === 'BOOKMARK')
            resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
          else if (event.type === 'ERROR') throw new KubeApiError(event.object.code ?? 500, event.object);
          else seen(event.object);
        }
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      } finally {
        response.destroy();
      }
    }
  }

  why(namespace: string, name: string, pod: string): Promise<PodWhy> {
    return this.client.request<PodWhy>({
      path: `${this.base(namespace, name)}/pods/${encodeURIComponent(pod)}/why`,
    });
  }

  private base(namespace: string, name: string): string {
    return `/${CONTROLPLANE_API_VERSION}/namespaces/${encodeURIComponent(namespace)}/${NGINX_PLURAL}/${encodeURIComponent(name)}`;
  }
}
