import { KubeApiError, type KubeClient } from '../libs/kube-runtime/src/index.js';

const ignoreConflict = (error: unknown) => {
  if (!(error instanceof KubeApiError && error.code === 409)) throw error;
};

/**
 * Makes sure `namespace` exists and POSTs `count` objects to `collection` (objects already there are kept), with
 * `concurrency` requests in flight. `body(i)` is the i-th object. Resolves with how long the creation took.
 */
export async function createObjects(
  client: KubeClient,
  namespace: string,
  collection: string,
  count: number,
  body: (i: number) => unknown,
  concurrency = 32,
): Promise<number> {
  await client
    .request({ method: 'POST', path: '/api/v1/namespaces', body: { metadata: { name: namespace } } })
    .catch(ignoreConflict);
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await client.request({ method: 'POST', path: collection, body: body(i) }).catch(ignoreConflict);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return performance.now() - started;
}
