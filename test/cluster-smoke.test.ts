import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { isNotFound, localCluster } from './support/kube.js';
import { uniqueName, waitFor } from './support/wait.js';

const { core } = localCluster();
const namespace = 'default';
const created: string[] = [];

function nginxPod(name: string, extra: Partial<V1Pod['metadata']> = {}): V1Pod {
  return {
    metadata: { name, labels: { test: 'cluster-smoke' }, ...extra },
    spec: { containers: [{ name: 'nginx', image: 'nginx:latest', ports: [{ containerPort: 80 }] }] },
  };
}

async function podGone(name: string): Promise<boolean> {
  try {
    await core.readNamespacedPod({ name, namespace });
    return false;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

afterAll(async () => {
  for (const name of created)
    await core.deleteNamespacedPod({ name, namespace, gracePeriodSeconds: 0 }).catch(() => {});
});

describe('the local control plane', () => {
  it('has 3 Ready kwok nodes', async () => {
    const nodes = await core.listNode({ labelSelector: 'type=kwok' });
    const ready = nodes.items.filter((node) =>
      node.status?.conditions?.some((condition) => condition.type === 'Ready' && condition.status === 'True'),
    );
    expect(ready.map((node) => node.metadata?.name).sort()).toEqual([
      'kwok-node-0',
      'kwok-node-1',
      'kwok-node-2',
    ]);
  });

  it('schedules a pod, runs it, and deletes it', async () => {
    const name = uniqueName('smoke');
    created.push(name);
    await core.createNamespacedPod({ namespace, body: nginxPod(name) });

    const running = await waitFor(`pod ${name} Running`, async () => {
      const pod = await core.readNamespacedPod({ name, namespace });
      return pod.status?.phase === 'Running' && pod;
    });
    expect(running.spec?.nodeName).toMatch(/^kwok-node-\d$/);
    expect(running.status?.podIP).toBeTruthy();
    expect(running.status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    await core.deleteNamespacedPod({ name, namespace });
    await waitFor(`pod ${name} gone`, () => podGone(name));
  });

  it('garbage-collects a pod whose owner is deleted', async () => {
    const ownerName = uniqueName('owner');
    const owner = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: ownerName } },
    });
    const podName = uniqueName('owned');
    created.push(podName);
    await core.createNamespacedPod({
      namespace,
      body: nginxPod(podName, {
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name: ownerName,
            uid: owner.metadata!.uid!,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      }),
    });
    await waitFor(`pod ${podName} Running`, async () => {
      const pod = await core.readNamespacedPod({ name: podName, namespace });
      return pod.status?.phase === 'Running';
    });

    await core.deleteNamespacedConfigMap({ name: ownerName, namespace });
    await waitFor(`garbage collector to delete ${podName}`, () => podGone(podName), { timeoutMs: 45_000 });
  });

  it('refuses an invalid pod with a 422 and creates nothing', async () => {
    const name = uniqueName('invalid');
    const attempt = core.createNamespacedPod({
      namespace,
      body: { metadata: { name }, spec: { containers: [] } },
    });
    await expect(attempt).rejects.toMatchObject({ code: 422 });
    expect(await podGone(name)).toBe(true);
  });
});
