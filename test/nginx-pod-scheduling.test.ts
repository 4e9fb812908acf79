// Pod scheduling fields of the template, on the local cluster: spec.priorityClassName reaches every pod (resolved
// by kube-apiserver's Priority admission to the class's value), changing it rolls a new revision, and a class that
// does not exist is the API server's refusal reported as ReplicaFailure, the controller still running.
// spec.nodeSelector and spec.tolerations steer pods (a selector no node matches leaves them Pending, and the status
// says why; a tainted node of the test's own takes only pods that tolerate it), a change of either rolls a new
// revision, and pods get the default spread over nodes when spec.topologySpreadConstraints is unset, none for [].
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import { validateNginx, type Nginx } from '../libs/nginx-api/src/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { active, createNamespace, nginxesIn, running } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
const PRIORITY_CLASSES = '/apis/scheduling.k8s.io/v1/priorityclasses';
const NODES = '/api/v1/nodes';

const priorities = (pods: readonly V1Pod[]) =>
  pods.map((pod) => [pod.spec?.priorityClassName, pod.spec?.priority] as const);

/** The scheduler's reason when it could not place the pod (PodScheduled False, Unschedulable). */
const unschedulable = (pod: V1Pod) =>
  pod.status?.conditions?.find(
    (c) => c.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable',
  )?.message;

afterAll(() => client.close());

describe('pod scheduling fields', () => {
  let controller: AppProcess;
  let namespace: string;
  let nginxes: ReturnType<typeof nginxesIn>;
  const high = uniqueName('high');

  beforeAll(async () => {
    namespace = await createNamespace(client, 'sched', cleanups);
    nginxes = nginxesIn(client, namespace);
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
  });

  /** Waits until `name` runs `count` pods of a revision other than `before`, each meeting `each`. */
  const rolledOut = (
    name: string,
    before: string | undefined,
    count: number,
    each: (pod: V1Pod) => boolean,
  ) =>
    waitFor(`${name}: a new revision rolled out`, async () => {
      const nginx = await nginxes.get(name);
      const pods = active(await nginxes.pods(name));
      const done =
        nginx.status?.updateRevision !== before &&
        nginx.status?.updatedReplicas === count &&
        nginx.status?.readyReplicas === count &&
        pods.length === count &&
        pods.every(each);
      return done && nginx;
    });

  it('runs every pod with spec.priorityClassName, and a change of it rolls out a new revision', async () => {
    const name = uniqueName('prio');
    await nginxes.create(name, { replicas: 2, priorityClassName: high });
    const first = await nginxes.converged(name, 2);
    expect(priorities(active(await nginxes.pods(name)))).toEqual([
      [high, 100_000],
      [high, 100_000],
    ]);

    // Back to the cluster's default: a template change, so a new revision replaces every pod.
    await nginxes.patchSpec(name, { priorityClassName: null });
    const second = await rolledOut(
      name,
      first.status?.updateRevision,
      2,
      (pod) => pod.spec?.priorityClassName === undefined,
    );
    expect(second.status?.updateRevision).not.toBe(first.status?.updateRevision);
    expect(priorities(active(await nginxes.pods(name)))).toEqual([
      [undefined, 0],
      [undefined, 0],
    ]);
  });

  it('reports a PriorityClass that does not exist as ReplicaFailure with the API server message', async () => {
    const name = uniqueName('noprio');
    const missing = uniqueName('missing');
    await nginxes.create(name, { replicas: 1, priorityClassName: missing });
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

  it('leaves pods Pending when no node matches spec.nodeSelector, says why, and rolls out a selector that matches', async () => {
    const name = uniqueName('nosel');
    await nginxes.create(name, { replicas: 2, nodeSelector: { type: 'no-such-node' } });
    const stuck = await waitFor('both pods unschedulable, and the status saying so', async () => {
      const nginx = await nginxes.get(name);
      const pods = active(await nginxes.pods(name));
      return (
        pods.length === 2 &&
        pods.every((pod) => unschedulable(pod) !== undefined) &&
        nginx.status?.message?.includes('2 pods cannot be scheduled') &&
        nginx
      );
    });
    expect(stuck.status?.message).toContain("didn't match Pod's node affinity/selector");
    expect(stuck.status?.conditions?.find((c) => c.type === 'Progressing')?.message).toContain(
      'cannot be scheduled',
    );
    for (const pod of await nginxes.pods(name))
      expect(pod.spec?.nodeSelector).toEqual({ type: 'no-such-node' });

    // The kwok nodes' label (tools/cluster/up.sh): a new revision, whose pods run.
    await nginxes.patchSpec(name, { nodeSelector: { type: 'kwok' } });
    const placed = await rolledOut(
      name,
      stuck.status?.updateRevision,
      2,
      (pod) => pod.spec?.nodeSelector?.type === 'kwok' && pod.status?.phase === 'Running',
    );
    expect(placed.status?.message).not.toContain('cannot be scheduled');
    expect(running(await nginxes.pods(name))).toHaveLength(2);
  });

  it('puts pods on a tainted node only once spec.tolerations tolerates its taint', async () => {
    // A node of this test's own (kwok runs it), tainted from the start: no other test's pod can land there.
    const node = uniqueName('tainted');
    await client.request<V1Node>({
      method: 'POST',
      path: NODES,
      body: {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: {
          name: node,
          annotations: { 'kwok.x-k8s.io/node': 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
          labels: { 'kubernetes.io/hostname': node, 'mycompany.com/test-node': node },
        },
        spec: { taints: [{ key: 'dedicated', value: node, effect: 'NoSchedule' }] },
      },
    });
    cleanups.push(() => client.request({ method: 'DELETE', path: `${NODES}/${node}` }));
    await client.request({
      method: 'PATCH',
      path: `${NODES}/${node}/status`,
      contentType: 'application/merge-patch+json',
      body: {
        status: {
          capacity: { cpu: '32', memory: '256Gi', pods: '110' },
          allocatable: { cpu: '32', memory: '256Gi', pods: '110' },
        },
      },
    });
    await waitFor(`node ${node} Ready`, async () => {
      const seen = await client.request<V1Node>({ path: `${NODES}/${node}` });
      return seen.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True');
    });

    const name = uniqueName('tol');
    await nginxes.create(name, { replicas: 2, nodeSelector: { 'mycompany.com/test-node': node } });
    const refused = await waitFor('pods refused by the taint', async () => {
      const nginx = await nginxes.get(name);
      const pods = active(await nginxes.pods(name));
      return (
        pods.length === 2 && pods.every((pod) => unschedulable(pod)?.includes('untolerated taint')) && nginx
      );
    });

    await nginxes.patchSpec(name, {
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: node, effect: 'NoSchedule' }],
    });
    await rolledOut(
      name,
      refused.status?.updateRevision,
      2,
      (pod) => pod.spec?.nodeName === node && pod.status?.phase === 'Running',
    );
    for (const pod of active(await nginxes.pods(name)))
      expect(pod.spec?.tolerations).toContainEqual({
        key: 'dedicated',
        operator: 'Equal',
        value: node,
        effect: 'NoSchedule',
      });
  });

  it('spreads pods over nodes by default, per revision, none with [], and copies the spread while paused', async () => {
    const name = uniqueName('spread');
    await nginxes.create(name, { replicas: 2 });
    await nginxes.converged(name, 2);
    for (const pod of await nginxes.pods(name)) {
      const [spread, ...others] = pod.spec?.topologySpreadConstraints ?? [];
      expect(others).toEqual([]);
      expect(spread).toMatchObject({
        maxSkew: 1,
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway',
        matchLabelKeys: ['mycompany.com/revision'],
        labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': name } },
      });
    }

    // Paused with a new image: the scale-up copies a running pod, whose spread the API server has changed.
    await nginxes.patchSpec(name, { paused: true, image: 'nginx:1.27' });
    await nginxes.scale(name, 3);
    await nginxes.converged(name, 3);
    expect(controller.exited()).toBeUndefined();

    const none = uniqueName('nospread');
    await nginxes.create(none, { replicas: 1, topologySpreadConstraints: [] });
    await nginxes.converged(none, 1);
    for (const pod of await nginxes.pods(none)) expect(pod.spec?.topologySpreadConstraints).toBeUndefined();
  });
});

describe('the scheduling rules', () => {
  it.each([
    [{ nodeSelector: { 'Bad Key': 'x' } }, 'spec.nodeSelector'],
    [{ tolerations: [{ key: 'a', operator: 'Exists', value: 'b' }] }, 'spec.tolerations[0]'],
    [{ tolerations: [{ value: 'b' }] }, 'spec.tolerations[0]'],
    [{ tolerations: [{ key: 'a', tolerationSeconds: 5 }] }, 'spec.tolerations[0]'],
    [
      {
        topologySpreadConstraints: [
          { maxSkew: 1, topologyKey: 'k', whenUnsatisfiable: 'ScheduleAnyway', minDomains: 2 },
        ],
      },
      'spec.topologySpreadConstraints[0]',
    ],
    [
      {
        affinity: {
          podAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: [
              { labelSelector: { matchLabels: { '-bad': 'x' } }, topologyKey: 'kubernetes.io/hostname' },
            ],
          },
        },
      },
      'spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchLabels',
    ],
  ])(
    'are refused alike, message and all, by the shared validation and the API server (CEL): %j',
    async (extra, field) => {
      const object = {
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        metadata: { name: uniqueName('rules') },
        spec: { replicas: 1, ...extra },
      };
      const ours = validateNginx(object);
      expect(ours.map((e) => e.field)).toEqual([field]);
      const namespace = 'default';
      const refusal = await client
        .request({
          method: 'POST',
          path: `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`,
          query: { dryRun: 'All' },
          body: object,
        })
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refusal).toBeInstanceOf(KubeApiError);
      expect((refusal as KubeApiError).code).toBe(422);
      const causes = (refusal as KubeApiError).status?.details?.causes ?? [];
      expect(causes).toContainEqual({
        reason: ours[0]!.reason,
        field: ours[0]!.field,
        message: ours[0]!.message,
      });
    },
  );
});
