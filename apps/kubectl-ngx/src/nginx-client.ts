import { collectionPath, objectPath, readWatchEvents, type KubeClient } from '@ngx/kube-runtime';
import { NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION, type Nginx } from '@ngx/nginx-api';

const nginxes = (namespace?: string) => ({
  group: NGINX_GROUP,
  version: NGINX_VERSION,
  plural: NGINX_PLURAL,
  ...(namespace !== undefined ? { namespace } : {}),
});

/** `/apis/mycompany.com/v1/…/nginxes[/{name}]`: served alike by kube-apiserver and by the control plane. */
export const nginxPath = (namespace: string | undefined, name?: string) =>
  name === undefined ? collectionPath(nginxes(namespace)) : objectPath(nginxes(namespace), name);

export function readNginx(client: KubeClient, namespace: string, name: string): Promise<Nginx> {
  return client.request<Nginx>({ path: nginxPath(namespace, name) });
}

export function listNginxes(
  client: KubeClient,
  namespace: string | undefined,
  fieldSelector?: string,
): Promise<{ items: Nginx[]; metadata: { resourceVersion?: string } }> {
  return client.request({
    path: nginxPath(namespace),
    ...(fieldSelector ? { query: { fieldSelector } } : {}),
  });
}

/** A JSON merge patch of the Nginx, answered with the Nginx as written. */
export function patchNginx(
  client: KubeClient,
  namespace: string,
  name: string,
  patch: Record<string, unknown>,
): Promise<Nginx> {
  return client.request<Nginx>({
    method: 'PATCH',
    path: nginxPath(namespace, name),
    contentType: 'application/merge-patch+json',
    body: patch,
  });
}

/**
 * Calls `seen` with each Nginx (of `namespace`, or all; `name` only, when given) as it is now and then at every
 * change, until `signal` fires: a LIST, then a WATCH from its resourceVersion, listed again when a watch ends or
 * expires (as an informer would, without its cache). A deleted Nginx comes with `deleted` true.
 */
export async function followNginxes(
  client: KubeClient,
  where: { namespace: string | undefined; name?: string },
  seen: (nginx: Nginx, deleted: boolean) => void | Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const fieldSelector = where.name !== undefined ? `metadata.name=${where.name}` : undefined;
  while (!signal.aborted) {
    const list = await listNginxes(client, where.namespace, fieldSelector);
    for (const nginx of list.items) await seen(nginx, false);
    let resourceVersion = list.metadata.resourceVersion;
    while (!signal.aborted && resourceVersion) {
      const response = await client.stream({
        path: nginxPath(where.namespace),
        query: {
          watch: 1,
          resourceVersion,
          allowWatchBookmarks: true,
          timeoutSeconds: 300,
          ...(fieldSelector ? { fieldSelector } : {}),
        },
        signal,
        timeoutMs: null,
      });
      let expired = false;
      try {
        for await (const event of readWatchEvents<Nginx>(response)) {
          if (event.type === 'ERROR') {
            expired = true;
            break;
          }
          resourceVersion = event.object.metadata?.resourceVersion ?? resourceVersion;
          if (event.type === 'BOOKMARK') continue;
          await seen(event.object as Nginx, event.type === 'DELETED');
        }
      } catch (error) {
        if (signal.aborted) return;
        throw error;
      } finally {
        response.destroy();
      }
      if (expired) break; // list again
    }
  }
}
