import { isConflict, isNotFound, type KubeRequester, METADATA_ONLY, objectPath } from '@ngx/kube-runtime';
import { jsonEqual, NGINX_GROUP, NGINX_PLURAL, NGINX_VERSION, type Nginx } from '@ngx/nginx-api';

const NGINXES = { group: NGINX_GROUP, version: NGINX_VERSION, plural: NGINX_PLURAL };

/** What became of a status write: 'conflict' when our copy stayed behind, 'gone' when the Nginx is (404). */
export type StatusWrite = 'written' | 'conflict' | 'gone';

/**
 * Writes `status` through the subresource. On a conflict our cached copy is behind, often only by our own last
 * status write that a slow watch has not brought yet: as the ReplicaSet controller does, it reads the Nginx from
 * the API server and writes once more over that, when it still has the spec the status was made for (same uid
 * and generation) and, for a canary, the status.canary it was planned from: its step is state that a plan made
 * from an older one may not overwrite.
 */
export async function writeStatus(
  client: KubeRequester,
  nginx: Nginx,
  status: Nginx['status'],
): Promise<StatusWrite> {
  const { name, namespace } = nginx.metadata;
  const path = objectPath({ ...NGINXES, namespace }, name!);
  const put = async (over: Nginx) => {
    await client.request({
      method: 'PUT',
      path: `${path}/status`,
      body: { ...over, status },
      accept: METADATA_ONLY,
    });
    return 'written' as const;
  };
  const settle = (error: unknown) => {
    if (isConflict(error)) return 'conflict' as const;
    if (isNotFound(error)) return 'gone' as const;
    throw error;
  };
  try {
    return await put(nginx);
  } catch (error) {
    if (settle(error) === 'gone') return 'gone';
  }
  try {
    const fresh = await client.request<Nginx>({ path });
    const sameSpec =
      fresh?.metadata?.uid === nginx.metadata.uid &&
      fresh.metadata.generation === nginx.metadata.generation &&
      jsonEqual(fresh.status?.canary, nginx.status?.canary);
    return sameSpec ? await put(fresh) : 'conflict';
  } catch (error) {
    return settle(error);
  }
}
