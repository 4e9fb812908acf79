// Rollouts on the local cluster: an image or config change moves every pod to the new revision within the
// strategy's bounds, as a watch of the pods sees them (pods not terminating and not finished count; available is
// ready, minReadySeconds being 0). One controller watches only this file's namespace.
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { SharedInformer, type KubeObject } from '../libs/kube-runtime/src/index.js';
import {
  LABEL_REVISION,
  podTemplateOf,
  revisionOf,
  validateNginx,
  type Nginx,
  type NginxSpec,
} from '../libs/nginx-api/src/index.js';
import { KubeApiError } from '../libs/kube-runtime/src/index.js';
import { isActive, isReady } from '../apps/api/src/controller/pod-plan.js';
import { HEADLESS, startApp, type AppProcess } from './support/app-process.js';
import { createNamespace } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { sleep, uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let ns: string;
let controller: AppProcess;
let pods: SharedInformer<V1Pod & KubeObject>;
const stopPods = new AbortController();

beforeAll(async () => {
  ns = await createNamespace(client, 'rollout', cleanups);
  controller = await startApp({ ...HEADLESS, WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  pods = new SharedInformer<V1Pod & KubeObject>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace: ns },
    kind: 'Pod',
  });
  void pods.run(stopPods.signal);
  await pods.waitForCacheSync();
}, 90_000);

afterAll(async () => {
  stopPods.abort();
  await controller?.terminate();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

const collection = () => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`;
const podsOf = (name: string) =>
  pods.cache.list().filter((p) => p.metadata?.labels?.['mycompany.com/nginx'] === name);
const revisionOfSpec = (spec: NginxSpec) => revisionOf(podTemplateOf(spec));

async function create(name: string, spec: NginxSpec): Promise<Nginx> {
  onTestFailed(() => console.log(`--- controller:\n${controller.output().slice(-6000)}`));
  return client.request<Nginx>({
    method: 'POST',
    path: collection(),
    body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name }, spec },
  });
}

function patchSpec(name: string, spec: Partial<NginxSpec>): Promise<Nginx> {
  return client.request<Nginx>({
    method: 'PATCH',
    path: `${collection()}/${name}`,
    contentType: 'application/merge-patch+json',
    body: { spec },
  });
}

/** Waits until `replicas` ready pods of `revision` are the only pods, and the status says the rollout is done. */
async function rolledOut(
  name: string,
  replicas: number,
  revision: string,
  timeoutMs = 90_000,
): Promise<Nginx> {
  return waitFor(
    `${ns}/${name}: ${replicas} ready pods of revision ${revision}, and nothing else`,
    async () => {
      const all = podsOf(name);
      const nginx = await client.request<Nginx>({ path: `${collection()}/${name}` });
      const done =
        all.length === replicas &&
        all.every((p) => isActive(p) && isReady(p) && p.metadata?.labels?.[LABEL_REVISION] === revision) &&
        nginx.status?.updatedReplicas === replicas &&
        nginx.status?.availableReplicas === replicas &&
        nginx.status?.updateRevision === revision &&
        nginx.status?.currentRevision === revision &&
        nginx.status?.observedGeneration === nginx.metadata.generation;
      return done && nginx;
    },
    { timeoutMs, intervalMs: 200 },
  );
}

/** Watches one Nginx's pods and keeps the extremes of what every event left: active pods, available pods. */
function boundsWatch(name: string) {
  const seen = { maxActive: 0, minAvailable: Number.POSITIVE_INFINITY, events: 0, mixedRevisions: false };
  const timeline: string[] = [];
  onTestFailed(() => console.log(`--- what the watch saw of ${name}:\n${timeline.join('\n')}`));
  const check = () => {
    const mine = podsOf(name);
    const active = mine.filter(isActive);
    seen.events++;
    seen.maxActive = Math.max(seen.maxActive, active.length);
    seen.minAvailable = Math.min(seen.minAvailable, active.filter(isReady).length);
    timeline.push(
      `${seen.events}: active ${active.length}, available ${active.filter(isReady).length}: ${mine
        .map(
          (p) =>
            `${p.metadata!.name!.slice(-5)}/${p.metadata?.labels?.[LABEL_REVISION]?.slice(0, 4)}${isReady(p) ? '+' : '-'}${p.metadata?.deletionTimestamp ? 'x' : ''}`,
        )
        .join(' ')}`,
    );
    // Recreate: a new pod never exists beside an old one, terminating or not.
    if (new Set(mine.map((p) => p.metadata?.labels?.[LABEL_REVISION])).size > 1) seen.mixedRevisions = true;
  };
  const remove = pods.addEventHandler({ add: check, update: check, delete: check });
  return { seen, stop: remove };
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
      expect(watch.seen.minAvailable).toBeGreaterThanOrEqual(minAvailable);
      expect(watch.seen.mixedRevisions).toBe(true); // it did roll, not swap
      expect(podsOf(name).every((p) => p.spec?.containers[0]?.image === 'nginx:1.28')).toBe(true);
      expect(done.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
        status: 'False',
        reason: 'ReplicasReady',
      });
    },
    180_000,
  );

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
    expect(watch.seen.minAvailable).toBeGreaterThanOrEqual(4);
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
    await patchSpec(name, { paused: true });
    const counts = () => {
      const active = podsOf(name).filter(isActive);
      const of = (revision: string) =>
        active.filter((p) => p.metadata?.labels?.[LABEL_REVISION] === revision).length;
      return `${of(before)} old, ${of(after)} new`;
    };
    // Whatever was under way when the pause was read settles within a step; then nothing moves.
    await sleep(3_000);
    const held = counts();
    await sleep(4_000);
    expect(counts()).toBe(held);
    const paused = await client.request<Nginx>({ path: `${collection()}/${name}` });
    expect(paused.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'Unknown',
      reason: 'Paused',
    });

    await patchSpec(name, { replicas: 8 });
    await waitFor('the scale-up while paused', async () => podsOf(name).filter(isActive).length === 8);
    const [oldBefore] = held.split(' old');
    expect(Number(counts().split(' old')[0])).toBeGreaterThanOrEqual(Number(oldBefore));

    await patchSpec(name, { paused: false });
    await rolledOut(name, 8, after);
  }, 180_000);

  it('the seed manifest (spec.replicas only) still runs its pods, and a scale-up adds pods of the same revision', async () => {
    const name = uniqueName('seed');
    await create(name, { replicas: 2 });
    const revision = revisionOfSpec({ replicas: 2 });
    await rolledOut(name, 2, revision);
    await patchSpec(name, { replicas: 3 });
    await rolledOut(name, 3, revision);
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
