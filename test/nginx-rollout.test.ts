// Rollouts on the local cluster: an image or config change moves every pod to the new revision within the
// strategy's bounds, as a watch of the pods sees them (pods not terminating and not finished count; available is
// ready, minReadySeconds being 0). One controller watches only this file's namespace.
import type {
  V1ConfigMap,
  V1ControllerRevision,
  V1Pod,
  V1PodDisruptionBudget,
  V1Service,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { LABEL_REVISION, validateNginx, type Nginx, type NginxSpec } from '../libs/nginx-api/src/index.js';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import { isActive } from '../apps/api/src/controller/pod-plan.js';
import { revisionOfSpec, rolloutsIn } from './support/rollouts.js';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { createNamespace, createPodQuota } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { staysTrue, uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let ns: string;
let controller: AppProcess;
let rollouts: Awaited<ReturnType<typeof rolloutsIn>>;

beforeAll(async () => {
  ns = await createNamespace(client, 'rollout', cleanups);
  controller = await startApp({ ...HEADLESS, WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  rollouts = await rolloutsIn(client, ns);
}, 90_000);

afterAll(async () => {
  await rollouts?.stop();
  await controller?.terminate();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

const collection = () => rollouts.collection;
const podsOf = (name: string) => rollouts.podsOf(name);
const rolledOut = (name: string, replicas: number, revision: string) =>
  rollouts.rolledOut(name, replicas, revision);
const boundsWatch = (name: string) => rollouts.boundsWatch(name);
const patchSpec = (name: string, spec: Partial<NginxSpec>) => rollouts.patchSpec(name, spec);

function create(name: string, spec: NginxSpec): Promise<Nginx> {
  onTestFailed(() => console.log(`--- controller:\n${controller.output().slice(-6000)}`));
  return rollouts.create(name, spec);
}

describe('rolling updates', () => {
  it.each([
    ['maxSurge 2, maxUnavailable 0', { maxSurge: 2, maxUnavailable: 0 }, 12, 10],
    ['maxUnavailable 30% (maxSurge 25%)', { maxUnavailable: '30%' }, 13, 7],
  ])(
    'an image change on 10 replicas with %s stays within the bounds and ends on the new revision',
    async (_, rollingUpdate, maxTotal, minAvailable) => {
      const name = uniqueName('roll');
      const spec: NginxSpec = {
        replicas: 10,
        image: 'nginx:1.27',
        strategy: { type: 'RollingUpdate', rollingUpdate },
      };
      await create(name, spec);
      await rolledOut(name, 10, revisionOfSpec(spec));

      const watch = boundsWatch(name);
      const next = { ...spec, image: 'nginx:1.28' };
      await patchSpec(name, { image: 'nginx:1.28' });
      const done = await rolledOut(name, 10, revisionOfSpec(next));
      watch.stop();
      expect(watch.seen.maxActive).toBeLessThanOrEqual(maxTotal);
      expect(watch.seen.minAvailableAfterDelete).toBeGreaterThanOrEqual(minAvailable);
      expect(watch.seen.mixedRevisions).toBe(true); // it did roll, not swap
      expect(podsOf(name).every((p) => p.spec?.containers[0]?.image === 'nginx:1.28')).toBe(true);
      expect(done.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
        status: 'False',
        reason: 'ReplicasReady',
      });
    },
    180_000,
  );

  it('a scale-up mid-rollout keeps both bounds for the new replicas', async () => {
    const name = uniqueName('rescale');
    const spec: NginxSpec = {
      replicas: 10,
      image: 'nginx:1.27',
      minReadySeconds: 1,
      strategy: { rollingUpdate: { maxSurge: 2, maxUnavailable: 0 } },
    };
    await create(name, spec);
    await rolledOut(name, 10, revisionOfSpec(spec));
    const watch = boundsWatch(name);
    await patchSpec(name, { image: 'nginx:1.28' });
    const after = revisionOfSpec({ ...spec, image: 'nginx:1.28' });
    await waitFor('the rollout to start', () =>
      podsOf(name).some((p) => isActive(p) && p.metadata?.labels?.[LABEL_REVISION] === after),
    );
    await patchSpec(name, { replicas: 14 });
    await rolledOut(name, 14, after);
    watch.stop();
    expect(watch.seen.maxActive).toBeLessThanOrEqual(16);
    expect(watch.seen.minAvailableAfterDelete).toBeGreaterThanOrEqual(10);
  }, 180_000);

  it('turns Progressing False with ProgressDeadlineExceeded when a quota stops the rollout, and rolls nothing back', async () => {
    const quotaNs = await createNamespace(client, 'rollout-quota', cleanups);
    const quotaController = await startApp({
      ...HEADLESS,
      WATCH_NAMESPACE: quotaNs,
      LEASE_NAMESPACE: quotaNs,
    });
    cleanups.push(() => quotaController.terminate());
    const inQuota = await rolloutsIn(client, quotaNs);
    cleanups.push(inQuota.stop);
    const name = uniqueName('deadline');
    const spec: NginxSpec = {
      replicas: 3,
      image: 'nginx:1.27',
      progressDeadlineSeconds: 3,
      strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    };
    await inQuota.create(name, spec);
    await inQuota.rolledOut(name, 3, revisionOfSpec(spec));
    await createPodQuota(client, quotaNs, 3); // no room for the surge pod
    await inQuota.patchSpec(name, { image: 'nginx:1.28' });
    const stalled = await waitFor(
      'Progressing=False/ProgressDeadlineExceeded',
      async () => {
        const nginx = await inQuota.get(name);
        const progressing = nginx.status?.conditions?.find((c) => c.type === 'Progressing');
        return progressing?.reason === 'ProgressDeadlineExceeded' && progressing.status === 'False' && nginx;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(stalled.spec.image).toBe('nginx:1.28'); // nothing rolled back
    expect(
      inQuota
        .podsOf(name)
        .filter(isActive)
        .map((p) => p.spec?.containers[0]?.image),
    ).toEqual(Array(3).fill('nginx:1.27'));
  }, 120_000);

  it('Recreate deletes every old pod before the first new one', async () => {
    const name = uniqueName('recreate');
    const spec: NginxSpec = { replicas: 10, image: 'nginx:1.27', strategy: { type: 'Recreate' } };
    await create(name, spec);
    await rolledOut(name, 10, revisionOfSpec(spec));
    const watch = boundsWatch(name);
    await patchSpec(name, { image: 'nginx:1.28' });
    await rolledOut(name, 10, revisionOfSpec({ ...spec, image: 'nginx:1.28' }));
    watch.stop();
    expect(watch.seen.mixedRevisions).toBe(false);
    expect(watch.seen.maxActive).toBeLessThanOrEqual(10);
  }, 180_000);

  it('a config change rolls out like an image change, each config in its own immutable ConfigMap', async () => {
    const name = uniqueName('config');
    const config = (text: string) =>
      `server {\n    listen 8080;\n    location / { return 200 '${text}'; }\n}\n`;
    const spec: NginxSpec = {
      replicas: 4,
      port: 8080,
      config: config('one'),
      healthCheckPath: '/',
      resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
      strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    };
    await create(name, spec);
    await rolledOut(name, 4, revisionOfSpec(spec));
    const [first] = podsOf(name);
    const container = first!.spec!.containers[0]!;
    expect(container.ports).toEqual([expect.objectContaining({ containerPort: 8080 })]);
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/', port: 8080 });
    expect(container.resources).toMatchObject({
      requests: { cpu: '50m', memory: '64Mi' },
      limits: { memory: '128Mi' },
    });
    const volume = first!.spec!.volumes!.find((v) => v.configMap)!;
    const configMap = await client.request<V1ConfigMap>({
      path: `/api/v1/namespaces/${ns}/configmaps/${volume.configMap!.name}`,
    });
    expect(configMap).toMatchObject({ immutable: true, data: { 'default.conf': config('one') } });
    expect(configMap.metadata?.ownerReferences?.[0]).toMatchObject({ kind: 'Nginx', name });

    const watch = boundsWatch(name);
    const next = { ...spec, config: config('two') };
    await patchSpec(name, { config: config('two') });
    await rolledOut(name, 4, revisionOfSpec(next));
    watch.stop();
    expect(watch.seen.maxActive).toBeLessThanOrEqual(5);
    expect(watch.seen.minAvailableAfterDelete).toBeGreaterThanOrEqual(4);
    const mounted = podsOf(name).map((p) => p.spec!.volumes!.find((v) => v.configMap)!.configMap!.name);
    expect(new Set(mounted).size).toBe(1);
    expect(mounted[0]).not.toBe(volume.configMap!.name);
  }, 180_000);

  it('a pause mid-rollout holds both revisions steady, a scale-up while paused copies the old revision, and resume finishes', async () => {
    const name = uniqueName('pause');
    // minReadySeconds slows each step to 2 s, so the pause lands mid-rollout.
    const spec: NginxSpec = {
      replicas: 6,
      image: 'nginx:1.27',
      minReadySeconds: 2,
      strategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
    };
    await create(name, spec);
    await rolledOut(name, 6, revisionOfSpec(spec));
    const [before, after] = [revisionOfSpec(spec), revisionOfSpec({ ...spec, image: 'nginx:1.28' })];
    await patchSpec(name, { image: 'nginx:1.28' });
    await waitFor('the rollout to start', async () =>
      podsOf(name).some((p) => isActive(p) && p.metadata?.labels?.[LABEL_REVISION] === after),
    );
    const pausedGeneration = (await patchSpec(name, { paused: true })).metadata.generation;
    // The pause is read: the status says Paused for the generation that asked for it. Syncs of one Nginx run one
    // at a time, so every pod write of an earlier sync was answered before this status was written.
    const paused = await waitFor('the status to say Paused for the pause', async () => {
      const nginx = await client.request<Nginx>({ path: `${collection()}/${name}` });
      const progressing = nginx.status?.conditions?.find((c) => c.type === 'Progressing');
      return (
        nginx.status?.observedGeneration === pausedGeneration && progressing?.reason === 'Paused' && nginx
      );
    });
    expect(paused.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'Unknown',
      reason: 'Paused',
    });
    // What the API server holds now (a fresh LIST, not the watch): the pause landed mid-rollout, both revisions
    // have pods.
    const activePods = async () =>
      (
        await client.request<{ items: V1Pod[] }>({
          path: `/api/v1/namespaces/${ns}/pods`,
          query: { labelSelector: `mycompany.com/nginx=${name}` },
        })
      ).items.filter(isActive);
    const of = (pods: V1Pod[], revision: string) =>
      pods.filter((p) => p.metadata?.labels?.[LABEL_REVISION] === revision);
    const held = await activePods();
    expect(of(held, before).length).toBeGreaterThan(0);
    expect(of(held, after).length).toBeGreaterThan(0);
    expect(of(held, before).length + of(held, after).length).toBe(held.length);

    // A scale-up while paused is the marker: once the controller has acted on it (status for its generation, 8
    // pods), it would have moved the rollout too had it not held. It did not: every held pod is still there, no
    // new-revision pod was added, and the two added pods are copies of the old revision.
    const scaledGeneration = (await patchSpec(name, { replicas: 8 })).metadata.generation;
    await waitFor('the scale-up while paused, acted on', async () => {
      const nginx = await client.request<Nginx>({ path: `${collection()}/${name}` });
      return nginx.status?.observedGeneration === scaledGeneration && (await activePods()).length === 8;
    });
    const scaled = await activePods();
    const uids = new Set(scaled.map((p) => p.metadata!.uid));
    expect(held.every((p) => uids.has(p.metadata!.uid))).toBe(true);
    expect(of(scaled, after).length).toBe(of(held, after).length);
    expect(of(scaled, before).length).toBe(8 - of(held, after).length);

    await patchSpec(name, { paused: false });
    await rolledOut(name, 8, after);
  }, 180_000);

  it('never rolls out a config that is not valid nginx, even one written to the API server directly', async () => {
    const broken = 'server {\n    listen 80\n}\n';
    // Straight to kube-apiserver (our API would refuse it with a 422): the CRD cannot check nginx syntax.
    const fresh = uniqueName('badconfig');
    await create(fresh, { replicas: 2, config: broken });
    const refused = await waitFor('Progressing=False/InvalidConfig', async () => {
      const nginx = await rollouts.get(fresh);
      const progressing = nginx.status?.conditions?.find((c) => c.type === 'Progressing');
      return progressing?.reason === 'InvalidConfig' && nginx;
    });
    expect(refused.status?.conditions?.find((c) => c.type === 'Progressing')?.message).toMatch(/line 3/);
    expect(podsOf(fresh)).toEqual([]);

    const running = uniqueName('goodconfig');
    const spec: NginxSpec = { replicas: 3, config: 'server { listen 80; }\n' };
    await create(running, spec);
    await rolledOut(running, 3, revisionOfSpec(spec));
    const watch = boundsWatch(running);
    await patchSpec(running, { config: broken });
    await waitFor('Progressing=False/InvalidConfig', async () =>
      (await rollouts.get(running)).status?.conditions?.some((c) => c.reason === 'InvalidConfig'),
    );
    await patchSpec(running, { replicas: 4 });
    await waitFor(
      'the scale-up, on the old revision',
      async () => podsOf(running).filter(isActive).length === 4,
    );
    const allOld = () =>
      podsOf(running).every((p) => p.metadata?.labels?.[LABEL_REVISION] === revisionOfSpec(spec));
    await staysTrue('every pod on the old revision', allOld, 1_000);
    watch.stop();
    expect(allOld()).toBe(true);
    expect(watch.seen.mixedRevisions).toBe(false);
  }, 120_000);

  it('the seed manifest (spec.replicas only) still runs its pods, and a scale-up adds pods of the same revision', async () => {
    const name = uniqueName('seed');
    await create(name, { replicas: 2 });
    const revision = revisionOfSpec({ replicas: 2 });
    await rolledOut(name, 2, revision);
    await patchSpec(name, { replicas: 3 });
    await rolledOut(name, 3, revision);
  }, 120_000);
});

describe('what an Nginx owns besides pods', () => {
  const revisionsOf = async (name: string) =>
    (
      await client.request<{ items: V1ControllerRevision[] }>({
        path: `/apis/apps/v1/namespaces/${ns}/controllerrevisions`,
        query: { labelSelector: `mycompany.com/nginx=${name}` },
      })
    ).items
      .map((r) => ({
        number: r.revision,
        hash: r.metadata!.labels![LABEL_REVISION],
        image: (r.data as { template: { image: string } }).template.image,
      }))
      .sort((a, b) => a.number - b.number);

  it('records each revision, renumbers one rolled back to, prunes beyond revisionHistoryLimit, and reuses a kept config', async () => {
    const name = uniqueName('history');
    const config = (text: string) =>
      `server {\n    listen 80;\n    location / { return 200 '${text}'; }\n}\n`;
    const spec: NginxSpec = {
      replicas: 2,
      image: 'nginx:1.27',
      config: config('a'),
      revisionHistoryLimit: 1,
    };
    await create(name, spec);
    await rolledOut(name, 2, revisionOfSpec(spec));
    const second = { ...spec, image: 'nginx:1.28', config: config('b') };
    await patchSpec(name, { image: 'nginx:1.28', config: config('b') });
    await rolledOut(name, 2, revisionOfSpec(second));
    await waitFor('two revisions', async () => (await revisionsOf(name)).length === 2);
    expect(await revisionsOf(name)).toEqual([
      { number: 1, hash: revisionOfSpec(spec), image: 'nginx:1.27' },
      { number: 2, hash: revisionOfSpec(second), image: 'nginx:1.28' },
    ]);
    const configMaps = async () =>
      (
        await client.request<{ items: V1ConfigMap[] }>({
          path: `/api/v1/namespaces/${ns}/configmaps`,
          query: { labelSelector: `mycompany.com/nginx=${name}` },
        })
      ).items
        .map((c) => c.metadata!.name!)
        .sort();
    const [firstConfigMaps] = [await configMaps()];
    expect(firstConfigMaps).toHaveLength(2);

    // Back to the first template: the same revision, renumbered as the newest; its ConfigMap is the old one.
    await patchSpec(name, { image: 'nginx:1.27', config: config('a') });
    await rolledOut(name, 2, revisionOfSpec(spec));
    await waitFor('revision 1 renumbered 3', async () =>
      (await revisionsOf(name)).some((r) => r.number === 3 && r.hash === revisionOfSpec(spec)),
    );
    expect(await configMaps()).toEqual(firstConfigMaps);

    // A third template: with revisionHistoryLimit 1, the oldest (2) goes, and with it config b.
    const third = { ...spec, image: 'nginx:1.29' };
    await patchSpec(name, { image: 'nginx:1.29' });
    await rolledOut(name, 2, revisionOfSpec(third));
    await waitFor('the history pruned to one old revision', async () => {
      const revisions = await revisionsOf(name);
      return revisions.length === 2 && revisions.map((r) => r.number).join() === '3,4';
    });
    await waitFor('config b deleted with its revision', async () => (await configMaps()).length === 1);
  }, 180_000);

  it('keeps a Service over every revision, reports its endpoints, and removes it with the spec', async () => {
    const name = uniqueName('svc');
    const spec: NginxSpec = { replicas: 3, port: 8080, service: { type: 'ClusterIP', port: 80 } };
    await create(name, spec);
    await rolledOut(name, 3, revisionOfSpec(spec));
    const service = await client.request<V1Service>({ path: `/api/v1/namespaces/${ns}/services/${name}` });
    expect(service.spec).toMatchObject({
      type: 'ClusterIP',
      selector: { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': name },
      ports: [{ port: 80, targetPort: 8080 }],
    });
    const withEndpoints = await waitFor(
      'status.service with 3 ready endpoints',
      async () => {
        const nginx = await client.request<Nginx>({ path: `${collection()}/${name}` });
        return nginx.status?.service?.readyEndpoints === 3 && nginx;
      },
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    expect(withEndpoints.status?.service).toMatchObject({ name, clusterIP: service.spec!.clusterIP });

    // Endpoints follow the pods: one fewer replica, one fewer endpoint.
    await patchSpec(name, { replicas: 2 });
    await waitFor(
      'status.service with 2 ready endpoints',
      async () =>
        (await client.request<Nginx>({ path: `${collection()}/${name}` })).status?.service?.readyEndpoints ===
        2,
      { timeoutMs: 60_000, intervalMs: 250 },
    );

    await patchSpec(name, { service: null as unknown as undefined });
    await waitFor('the Service to go', async () =>
      client.request({ path: `/api/v1/namespaces/${ns}/services/${name}` }).then(
        () => false,
        (error: unknown) => error instanceof KubeApiError && error.code === 404,
      ),
    );
  }, 120_000);

  it('keeps a PodDisruptionBudget that the API server enforces on evictions', async () => {
    const name = uniqueName('pdb');
    const spec: NginxSpec = { replicas: 2, disruptionBudget: { minAvailable: 2 } };
    await create(name, spec);
    await rolledOut(name, 2, revisionOfSpec(spec));
    const budgetPath = `/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets/${name}`;
    await waitFor(
      'the disruption controller to count the pods',
      async () => {
        const budget = await client
          .request<V1PodDisruptionBudget>({ path: budgetPath })
          .catch(() => undefined);
        return (
          budget?.status?.currentHealthy === 2 &&
          budget.status.observedGeneration === budget.metadata?.generation
        );
      },
      { timeoutMs: 60_000 },
    );
    const evict = (pod: string) =>
      client.request({
        method: 'POST',
        path: `/api/v1/namespaces/${ns}/pods/${pod}/eviction`,
        body: { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: pod, namespace: ns } },
      });
    const [victim] = podsOf(name).map((p) => p.metadata!.name!);
    const refused = await evict(victim!).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(KubeApiError);
    expect((refused as KubeApiError).code).toBe(429);

    await patchSpec(name, {
      disruptionBudget: { minAvailable: null as unknown as undefined, maxUnavailable: 1 },
    });
    await waitFor(
      'the budget to allow one disruption',
      async () => {
        const budget = await client.request<V1PodDisruptionBudget>({ path: budgetPath });
        return budget.spec?.maxUnavailable === 1 && budget.status?.disruptionsAllowed === 1;
      },
      { timeoutMs: 60_000 },
    );
    await waitFor(
      "the Nginx's status to show the budget's allowed disruptions",
      async () => {
        const nginx = await rollouts.get(name);
        return nginx.status?.disruptionBudget?.disruptionsAllowed === 1 && nginx.status.disruptionBudget;
      },
      { timeoutMs: 30_000 },
    ).then((budget) =>
      expect(budget).toEqual({ name, disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1 }),
    );
    await evict(victim!);
    await rolledOut(name, 2, revisionOfSpec(spec)); // the evicted pod is replaced
  }, 120_000);
});

describe('the rules the schema alone cannot state', () => {
  it.each([
    [{ strategy: { rollingUpdate: { maxSurge: 0, maxUnavailable: '0%' } } }, 'spec.strategy.rollingUpdate'],
    [{ strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }, 'spec.strategy'],
    [{ resources: { requests: { memory: '128Mi' }, limits: { memory: '64Mi' } } }, 'spec.resources'],
    [{ service: { nodePort: 30080 } }, 'spec.service'],
    [{ disruptionBudget: { minAvailable: 1, maxUnavailable: '10%' } }, 'spec.disruptionBudget'],
    [{ minReadySeconds: 700 }, 'spec.progressDeadlineSeconds'],
    [
      { strategy: { rollingUpdate: { maxUnavailable: '150%' } } },
      'spec.strategy.rollingUpdate.maxUnavailable',
    ],
  ])('are refused alike by the shared validation and the API server (CEL): %j', async (extra, field) => {
    const object = {
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: uniqueName('rules') },
      spec: { replicas: 1, ...extra },
    };
    expect(validateNginx(object).map((e) => e.field)).toEqual([field]);
    const refusal = await client
      .request({ method: 'POST', path: collection(), query: { dryRun: 'All' }, body: object })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(refusal).toBeInstanceOf(KubeApiError);
    expect((refusal as KubeApiError).code).toBe(422);
    expect(JSON.stringify((refusal as KubeApiError).status)).toContain(field);
  });
});
