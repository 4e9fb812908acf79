// An HPA on an Nginx, on the local cluster: `kubectl autoscale ngx` makes an autoscaling/v2 HPA whose target is the
// Nginx's scale subresource; kube-controller-manager's HPA controller reads it (replicas, and the pods' selector from
// .status.selector) and, with no metrics server, still holds spec.replicas within [minReplicas, maxReplicas]; our
// controller follows spec.replicas. `kubectl scale ngx` writes through the same subresource.
import type { CoreV1Event, V2HorizontalPodAutoscaler } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { kubectl } from './support/kubectl.js';
import { createNamespace, nginxesIn } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];

/** The autoscaling/v1 Scale the API server serves for an Nginx (what the HPA controller reads and writes). */
interface Scale {
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

const condition = (hpa: V2HorizontalPodAutoscaler, type: string) =>
  hpa.status?.conditions?.find((c) => c.type === type);

describe('a HorizontalPodAutoscaler on an Nginx', () => {
  let controller: AppProcess;
  let namespace: string;
  const name = uniqueName('auto');
  let hpaPath: string;
  let scalePath: string;

  beforeAll(async () => {
    namespace = await createNamespace(client, 'hpa', cleanups);
    hpaPath = `/apis/autoscaling/v2/namespaces/${namespace}/horizontalpodautoscalers/${name}`;
    scalePath = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes/${name}/scale`;
    controller = await startApp({ ...HEADLESS, LEADER_ELECTION: 'false', WATCH_NAMESPACE: namespace });
  });
  afterAll(async () => {
    await controller?.stop();
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    client.close();
  });

  const hpa = () => client.request<V2HorizontalPodAutoscaler>({ path: hpaPath });
  const hpaEvents = async (uid: string) =>
    (
      await client.request<{ items: CoreV1Event[] }>({
        path: `/api/v1/namespaces/${namespace}/events`,
        query: { fieldSelector: `involvedObject.uid=${uid}` },
      })
    ).items;

  it('kubectl autoscale ngx makes a v2 HPA that raises an Nginx at 1 replica to minReplicas, without metrics', async () => {
    const nginxes = nginxesIn(client, namespace);
    await nginxes.create(name, 1);
    const one = await nginxes.converged(name, 1);
    const selector = `app.kubernetes.io/name=nginx,mycompany.com/nginx=${name}`;
    expect(one.status?.selector).toBe(selector);
    // The scale subresource: replicas from spec and status, the selector from .status.selector.
    expect(await client.request<Scale>({ path: scalePath })).toMatchObject({
      spec: { replicas: 1 },
      status: { replicas: 1, selector },
    });

    const out = await kubectl(
      'autoscale',
      'ngx',
      name,
      '--min=3',
      '--max=5',
      '--cpu-percent=50',
      '-n',
      namespace,
    );
    expect(out.trim()).toBe(`horizontalpodautoscaler.autoscaling/${name} autoscaled`);
    expect((await hpa()).spec).toEqual({
      scaleTargetRef: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', name },
      minReplicas: 3,
      maxReplicas: 5,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } },
        },
      ],
    });

    // Below minReplicas the HPA controller scales without asking for metrics; our controller makes the pods.
    const three = await nginxes.converged(name, 3, 60_000);
    expect(three.spec.replicas).toBe(3);

    // Once within bounds it wants CPU metrics, which nothing serves (no metrics-server on kwok nodes): it stays
    // able to scale (it read the scale subresource, and the selector, else the reason would be InvalidSelector)
    // but not active, and keeps the replicas it has.
    const settled = await waitFor(
      'the HPA at 3 replicas, ScalingActive False for want of metrics',
      async () => {
        const current = await hpa();
        return (
          current.status?.currentReplicas === 3 &&
          condition(current, 'ScalingActive')?.status === 'False' &&
          current
        );
      },
      { timeoutMs: 60_000 },
    );
    expect(settled.status).toMatchObject({ currentReplicas: 3, desiredReplicas: 3 });
    expect(condition(settled, 'AbleToScale')).toMatchObject({ status: 'True' });
    expect(condition(settled, 'AbleToScale')?.reason).toMatch(
      /^(SucceededGetScale|SucceededRescale|ReadyForNewScale)$/,
    );
    expect(condition(settled, 'ScalingActive')).toMatchObject({
      status: 'False',
      reason: 'FailedGetResourceMetric',
    });
    expect(condition(settled, 'ScalingActive')?.message).toMatch(/metrics/);
    const rescales = (await hpaEvents(settled.metadata!.uid!)).filter(
      (e) => e.reason === 'SuccessfulRescale',
    );
    expect(rescales.map((e) => e.message)).toContain(
      'New size: 3; reason: Current number of replicas below Spec.MinReplicas',
    );
    expect((await nginxes.get(name)).spec.replicas).toBe(3);
  });

  it('scales down to a lowered maxReplicas; a max below min is refused and changes nothing', async () => {
    const nginxes = nginxesIn(client, namespace);
    // maxReplicas 2 with minReplicas 3 is invalid: kube-apiserver refuses the patch, the HPA keeps its spec.
    const refused = await kubectl(
      'patch',
      'hpa',
      name,
      '-n',
      namespace,
      '--type=merge',
      '-p',
      '{"spec":{"maxReplicas":2}}',
    ).catch((error: { stderr: string }) => error);
    expect(typeof refused).not.toBe('string');
    expect((refused as { stderr: string }).stderr).toMatch(
      /maxReplicas.*must be greater than or equal to `minReplicas`/,
    );
    expect((await hpa()).spec).toMatchObject({ minReplicas: 3, maxReplicas: 5 });

    await kubectl(
      'patch',
      'hpa',
      name,
      '-n',
      namespace,
      '--type=merge',
      '-p',
      '{"spec":{"minReplicas":1,"maxReplicas":2}}',
    );
    const two = await nginxes.converged(name, 2, 60_000);
    expect(two.spec.replicas).toBe(2);
    const current = await waitFor(
      'the HPA to see 2 replicas',
      async () => {
        const h = await hpa();
        return h.status?.currentReplicas === 2 && h;
      },
      { timeoutMs: 60_000 },
    );
    const rescales = (await hpaEvents(current.metadata!.uid!)).filter(
      (e) => e.reason === 'SuccessfulRescale',
    );
    expect(rescales.map((e) => e.message)).toContain(
      'New size: 2; reason: Current number of replicas above Spec.MaxReplicas',
    );
  });

  it('kubectl scale ngx writes spec.replicas through the scale subresource; a negative count is refused', async () => {
    const nginxes = nginxesIn(client, namespace);
    // With the HPA in place it would set the count back within its bounds on its next sync: remove it first.
    await kubectl('delete', 'hpa', name, '-n', namespace);

    const out = await kubectl('scale', 'ngx', name, '--replicas=4', '-n', namespace);
    expect(out.trim()).toBe(`nginx.mycompany.com/${name} scaled`);
    const four = await nginxes.converged(name, 4, 60_000);
    expect(four.spec.replicas).toBe(4);
    expect(await client.request<Scale>({ path: scalePath })).toMatchObject({
      spec: { replicas: 4 },
      status: { replicas: 4 },
    });

    // The CRD's schema judges the Nginx a Scale lands in: 422, the Nginx unchanged.
    const error = await client
      .request({
        method: 'PUT',
        path: scalePath,
        body: {
          apiVersion: 'autoscaling/v1',
          kind: 'Scale',
          metadata: { name, namespace },
          spec: { replicas: -1 },
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(KubeApiError);
    expect((error as KubeApiError).code).toBe(422);
    expect((await nginxes.get(name)).spec.replicas).toBe(4);
    await nginxes.stays(name, 4);
  });
});
