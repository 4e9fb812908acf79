// Pod scheduling fields of the template, on the local cluster: spec.priorityClassName reaches every pod (resolved
// by kube-apiserver's Priority admission to the class's value), changing it rolls a new revision, and a class that
// does not exist is the API server's refusal reported as ReplicaFailure, the controller still running.
import type { V1Pod } from '@kubernetes/client-node';
import type { Nginx } from '../libs/nginx-api/src/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { active, createNamespace, nginxesIn } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const PRIORITY_CLASSES = '/apis/scheduling.k8s.io/v1/priorityclasses';

const priorities = (pods: readonly V1Pod[]) =>
  pods.map((pod) => [pod.spec?.priorityClassName, pod.spec?.priority] as const);

describe('pod scheduling fields', () => {
  let controller: AppProcess;
  let namespace: string;
  const high = uniqueName('high');

  beforeAll(async () => {
    namespace = await createNamespace(client, 'sched', cleanups);
    await client.request({
      method: 'POST',
      path: PRIORITY_CLASSES,
      body: {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: high },
        value: 100_000,
      },
    });
    cleanups.push(() => client.request({ method: 'DELETE', path: `${PRIORITY_CLASSES}/${high}` }));
    controller = await startApp({ ...HEADLESS, LEADER_ELECTION: 'false', WATCH_NAMESPACE: namespace });
  });
  afterAll(async () => {
    await controller?.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    client.close();
  });

  it('runs every pod with spec.priorityClassName, and a change of it rolls out a new revision', async () => {
    const nginxes = nginxesIn(client, namespace);
    const name = uniqueName('prio');
    await client.request({
      method: 'POST',
      path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`,
      body: {
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        metadata: { name },
        spec: { replicas: 2, priorityClassName: high },
      },
    });
    const first = await nginxes.converged(name, 2);
    expect(priorities(active(await nginxes.pods(name)))).toEqual([
      [high, 100_000],
      [high, 100_000],
    ]);

    // Back to the cluster's default: a template change, so a new revision replaces every pod.
    await client.request({
      method: 'PATCH',
      path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes/${name}`,
      contentType: 'application/merge-patch+json',
      body: { spec: { priorityClassName: null } },
    });
    const second = await waitFor('the new revision rolled out', async () => {
      const nginx = await nginxes.get(name);
      const pods = active(await nginxes.pods(name));
      const done =
        nginx.status?.updateRevision !== first.status?.updateRevision &&
        nginx.status?.updatedReplicas === 2 &&
        nginx.status?.readyReplicas === 2 &&
        pods.length === 2 &&
        pods.every((pod) => pod.spec?.priorityClassName === undefined);
      return done && nginx;
    });
    expect(second.status?.updateRevision).not.toBe(first.status?.updateRevision);
    expect(priorities(active(await nginxes.pods(name)))).toEqual([
      [undefined, 0],
      [undefined, 0],
    ]);
  });

  it('reports a PriorityClass that does not exist as ReplicaFailure with the API server message', async () => {
    const nginxes = nginxesIn(client, namespace);
    const name = uniqueName('noprio');
    const missing = uniqueName('missing');
    await client.request({
      method: 'POST',
      path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`,
      body: {
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        metadata: { name },
        spec: { replicas: 1, priorityClassName: missing },
      },
    });
    const failing = await waitFor('a ReplicaFailure condition', async () => {
      const nginx: Nginx = await nginxes.get(name);
      const failure = nginx.status?.conditions?.find((c) => c.type === 'ReplicaFailure');
      return failure?.status === 'True' && failure;
    });
    expect(failing.reason).toBe('FailedCreate');
    expect(failing.message).toContain(missing);
    expect(await nginxes.pods(name)).toEqual([]);
    expect(controller.exited()).toBeUndefined();
    expect((await fetch(`${controller.url}/healthz`)).status).toBe(200);
  });
});
