// Runs alone: restarts kube-apiserver.
import type { V1ConfigMap, V1CustomResourceDefinition, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeletedFinalStateUnknown,
  KubeApiError,
  SharedInformer,
  stripManagedFields,
  type KubeClient,
  type KubeObject,
} from '../../libs/kube-runtime/src/index.js';
import { clusterScript } from '../support/cluster-processes.js';
import { runtimeClient } from '../support/runtime.js';
import { uniqueName, waitFor } from '../support/wait.js';

const NAMESPACE = 'default';
const client: KubeClient = runtimeClient();
const podsPath = `/api/v1/namespaces/${NAMESPACE}/pods`;
const label = uniqueName('informer-test');

function pod(name: string): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels: { suite: label } },
    spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
  };
}

interface Recorded {
  events: string[];
  informer: SharedInformer<V1Pod & KubeObject>;
  stop: () => Promise<void>;
}

async function startPodInformer(
  extra: Partial<ConstructorParameters<typeof SharedInformer>[0]> = {},
): Promise<Recorded> {
  const informer = new SharedInformer<V1Pod & KubeObject>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace: NAMESPACE },
    kind: 'Pod',
    labelSelector: `suite=${label}`,
    transform: stripManagedFields,
    ...(extra as object),
  });
  const events: string[] = [];
  informer.addEventHandler({
    add: (p) => events.push(`add ${p.metadata?.name}`),
    update: (a, b) =>
      a.metadata?.resourceVersion !== b.metadata?.resourceVersion &&
      events.push(`update ${b.metadata?.name}`),
    delete: (p) =>
      events.push(
        p instanceof DeletedFinalStateUnknown ? `tombstone ${p.key}` : `delete ${p.metadata?.name}`,
      ),
  });
  const abort = new AbortController();
  const running = informer.run(abort.signal);
  expect(await informer.waitForCacheSync()).toBe(true);
  return {
    events,
    informer,
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

/** What a fresh LIST says: name → resourceVersion. */
async function freshList(): Promise<Map<string, string>> {
  const list = await client.request<{ items: V1Pod[] }>({
    path: podsPath,
    query: { labelSelector: `suite=${label}` },
  });
  return new Map(list.items.map((p) => [p.metadata!.name!, p.metadata!.resourceVersion!]));
}

function cacheState(informer: SharedInformer<V1Pod & KubeObject>): Map<string, string> {
  return new Map(informer.cache.list().map((p) => [p.metadata!.name!, p.metadata!.resourceVersion!]));
}

const deleteQuietly = (name: string) =>
  client
    .request({ method: 'DELETE', path: `${podsPath}/${name}`, query: { gracePeriodSeconds: 0 } })
    .catch(() => {});

afterAll(async () => {
  const left = await freshList();
  await Promise.all([...left.keys()].map(deleteQuietly));
  client.close();
});

describe('SharedInformer against the local cluster', () => {
  it('sees pods created, updated and deleted, with managedFields stripped', async () => {
    const { events, informer, stop } = await startPodInformer();
    try {
      const name = uniqueName('inf');
      await client.request({ method: 'POST', path: podsPath, body: pod(name) });
      await waitFor('add', () => events.includes(`add ${name}`));
      expect(informer.cache.get(`${NAMESPACE}/${name}`)?.metadata?.managedFields).toBeUndefined();

      await client.request({
        method: 'PATCH',
        path: `${podsPath}/${name}`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { annotations: { touched: 'yes' } } },
      });
      await waitFor(
        'update',
        () => informer.cache.get(`${NAMESPACE}/${name}`)?.metadata?.annotations?.touched === 'yes',
      );
      expect(events).toContain(`update ${name}`);

      await deleteQuietly(name);
      await waitFor('delete', () => events.includes(`delete ${name}`));
      expect(informer.cache.has(`${NAMESPACE}/${name}`)).toBe(false);
    } finally {
      await stop();
    }
  });

  it('relists after a 410 Gone and converges on what a fresh LIST shows', async () => {
    const { informer, stop } = await startPodInformer({ minWatchTimeoutSeconds: 1 });
    try {
      const before = uniqueName('gone');
      await client.request({ method: 'POST', path: podsPath, body: pod(before) });
      await waitFor('first pod cached', () => informer.cache.has(`${NAMESPACE}/${before}`));
      // Make the next watch start from an ancient resourceVersion, as after a long disconnection.
      const [partition] = (
        informer as unknown as { partitions: { reflector: { resourceVersion: string } }[] }
      ).partitions;
      partition!.reflector.resourceVersion = '2';
      const after = uniqueName('gone');
      await client.request({ method: 'POST', path: podsPath, body: pod(after) });
      await deleteQuietly(before);
      await waitFor('cache equal to a fresh list', async () => {
        const expected = await freshList();
        return (
          JSON.stringify([...cacheState(informer)].sort()) === JSON.stringify([...expected].sort()) &&
          expected.has(after)
        );
      });
    } finally {
      await stop();
    }
  });

  it('advances its resourceVersion through bookmarks when nothing it watches changes', async () => {
    const { informer, stop } = await startPodInformer({
      minWatchTimeoutSeconds: 5,
      labelSelector: `suite=${uniqueName('none')}`,
    });
    try {
      const start = BigInt(informer.lastSyncResourceVersion);
      // Changes outside the selector move the cluster's resourceVersion without sending this watch any event.
      const other = uniqueName('bookmark-cm');
      await client.request<V1ConfigMap>({
        method: 'POST',
        path: `/api/v1/namespaces/${NAMESPACE}/configmaps`,
        body: { metadata: { name: other } },
      });
      // The API server's watch cache learns of that revision only from pod events or an etcd progress
      // notification, which a consistent LIST asks for; on a quiet cluster, ask, so the next bookmark carries it.
      await waitFor(
        'a bookmark',
        async () => {
          if (BigInt(informer.lastSyncResourceVersion) > start) return true;
          await client.request({ path: `/api/v1/namespaces/${NAMESPACE}/pods`, query: { limit: 1 } });
          return false;
        },
        { timeoutMs: 45_000, intervalMs: 1000 },
      );
      expect(informer.cache.size).toBe(0);
      await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${NAMESPACE}/configmaps/${other}` });
    } finally {
      await stop();
    }
  });

  it('survives a kube-apiserver restart and ends equal to a fresh LIST', async () => {
    const { informer, stop } = await startPodInformer();
    try {
      const name = uniqueName('restart');
      await client.request({ method: 'POST', path: podsPath, body: pod(name) });
      await waitFor('cached', () => informer.cache.has(`${NAMESPACE}/${name}`));

      const { stopKubeApiServer } = await import('../support/cluster-processes.js');
      await stopKubeApiServer();
      await clusterScript('up');

      await client.request({
        method: 'PATCH',
        path: `${podsPath}/${name}`,
        contentType: 'application/merge-patch+json',
        body: { metadata: { annotations: { after: 'restart' } } },
      });
      const added = uniqueName('restart');
      await client.request({ method: 'POST', path: podsPath, body: pod(added) });
      await waitFor(
        'cache equal to a fresh list',
        async () => {
          const expected = await freshList();
          return (
            expected.has(added) &&
            informer.cache.get(`${NAMESPACE}/${name}`)?.metadata?.annotations?.after === 'restart' &&
            JSON.stringify([...cacheState(informer)].sort()) === JSON.stringify([...expected].sort())
          );
        },
        { timeoutMs: 60_000, intervalMs: 250 },
      );
    } finally {
      await stop();
    }
  }, 180_000);
});

describe('SharedInformer on a custom resource', () => {
  const group = 'runtime.test.mycompany.com';
  const crdName = `widgets.${group}`;

  beforeAll(async () => {
    const crd: V1CustomResourceDefinition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: crdName },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
              },
            },
          },
        ],
      },
    };
    await client
      .request({ method: 'POST', path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', body: crd })
      .catch((error) => {
        if (!(error instanceof KubeApiError && error.code === 409)) throw error;
      });
    await waitFor('the CRD to be served', () =>
      client.request({ path: `/apis/${group}/v1/namespaces/${NAMESPACE}/widgets` }).then(() => true),
    );
  });

  it('sees custom objects created, updated and deleted', async () => {
    const informer = new SharedInformer<KubeObject & { spec?: { size?: number } }>({
      client,
      resource: { group, version: 'v1', plural: 'widgets', namespace: NAMESPACE },
      kind: 'Widget',
    });
    const events: string[] = [];
    informer.addEventHandler({
      add: (w) => events.push(`add ${w.metadata?.name}`),
      update: (_, w) => events.push(`update ${w.metadata?.name} ${w.spec?.size}`),
      delete: (w) =>
        events.push(`delete ${w instanceof DeletedFinalStateUnknown ? w.key : w.metadata?.name}`),
    });
    const abort = new AbortController();
    const running = informer.run(abort.signal);
    try {
      await informer.waitForCacheSync();
      const path = `/apis/${group}/v1/namespaces/${NAMESPACE}/widgets`;
      const name = uniqueName('w');
      await client.request({
        method: 'POST',
        path,
        body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name }, spec: { size: 1 } },
      });
      await client.request({
        method: 'PATCH',
        path: `${path}/${name}`,
        contentType: 'application/merge-patch+json',
        body: { spec: { size: 2 } },
      });
      await client.request({ method: 'DELETE', path: `${path}/${name}` });
      await waitFor('delete', () => events.includes(`delete ${name}`));
      expect(events).toEqual([`add ${name}`, `update ${name} 2`, `delete ${name}`]);
    } finally {
      abort.abort();
      await running;
    }
  });
});
