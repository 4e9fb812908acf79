import { KubeApiError, METADATA_ONLY, type KubeRequest } from '@ngx/kube-runtime';
import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { writeStatus } from './status-write.js';

const NGINX_PATH = '/apis/mycompany.com/v1/namespaces/default/nginxes/web';
const STATUS = { replicas: 2, readyReplicas: 2 } as Nginx['status'];

const nginx = (metadata: Partial<Nginx['metadata']> = {}): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: {
    name: 'web',
    namespace: 'default',
    uid: 'u-web',
    generation: 1,
    resourceVersion: '10',
    ...metadata,
  },
  spec: { replicas: 2 },
});

const refusal = (code: number) => new KubeApiError(code, { kind: 'Status', code });

/** An API server that answers the status PUTs in turn from `puts` (an error is thrown) and a GET with `fresh`. */
function api(puts: unknown[], fresh: () => unknown = () => nginx({ resourceVersion: '11' })) {
  const requests: KubeRequest[] = [];
  const client = {
    request: async <T>(req: KubeRequest): Promise<T> => {
      requests.push(req);
      const answer = req.method === 'PUT' ? puts.shift() : fresh();
      if (answer instanceof Error) throw answer;
      return answer as T;
    },
  };
  return { client, requests };
}

describe('writeStatus', () => {
  it('writes through the status subresource, reading back only metadata', async () => {
    const { client, requests } = api([{}]);
    expect(await writeStatus(client, nginx(), STATUS)).toBe('written');
    expect(requests).toEqual([
      {
        method: 'PUT',
        path: `${NGINX_PATH}/status`,
        body: { ...nginx(), status: STATUS },
        accept: METADATA_ONLY,
      },
    ]);
  });

  it('after a conflict, writes once more over a fresh read that has the same spec', async () => {
    const { client, requests } = api([refusal(409), {}]);
    expect(await writeStatus(client, nginx(), STATUS)).toBe('written');
    expect(requests.map((r) => r.method ?? 'GET')).toEqual(['PUT', 'GET', 'PUT']);
    expect(requests[2]!.body).toMatchObject({ metadata: { resourceVersion: '11' }, status: STATUS });
  });

  it('answers conflict when the fresh read has another spec, or the second write meets one too', async () => {
    const changed = api([refusal(409)], () => nginx({ generation: 2 }));
    expect(await writeStatus(changed.client, nginx(), STATUS)).toBe('conflict');
    expect(changed.requests).toHaveLength(2);

    const replaced = api([refusal(409)], () => nginx({ uid: 'u-new' }));
    expect(await writeStatus(replaced.client, nginx(), STATUS)).toBe('conflict');

    const again = api([refusal(409), refusal(409)]);
    expect(await writeStatus(again.client, nginx(), STATUS)).toBe('conflict');
  });

  it('answers gone on a 404 of the write or of the fresh read, and throws any other refusal', async () => {
    expect(await writeStatus(api([refusal(404)]).client, nginx(), STATUS)).toBe('gone');
    const vanished = api([refusal(409)], () => refusal(404));
    expect(await writeStatus(vanished.client, nginx(), STATUS)).toBe('gone');
    await expect(writeStatus(api([refusal(422)]).client, nginx(), STATUS)).rejects.toBeInstanceOf(
      KubeApiError,
    );
  });
});
