import type { V1Pod } from '@kubernetes/client-node';
import { onTestFailed } from 'vitest';
import {
  DeletedFinalStateUnknown,
  SharedInformer,
  type KubeClient,
  type KubeObject,
} from '../../libs/kube-runtime/src/index.js';
import {
  LABEL_REVISION,
  podTemplateOf,
  revisionOf,
  type Nginx,
  type NginxBlueGreenStatus,
  type NginxCanaryStatus,
  type NginxSpec,
} from '../../libs/nginx-api/src/index.js';
import { isActive, isReady } from '../../apps/api/src/controller/pod-plan.js';
import { waitFor } from './wait.js';

export const revisionOfSpec = (spec: NginxSpec) => revisionOf(podTemplateOf(spec));

/**
 * Nginxes in one namespace and a watch of its pods, for rollout tests: create, patch, wait until rolled out, and
 * watch the bounds a rollout keeps.
 */
export async function rolloutsIn(client: KubeClient, namespace: string) {
  const collection = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;
  const pods = new SharedInformer<V1Pod & KubeObject>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace },
    kind: 'Pod',
  });
  const stopPods = new AbortController();
  const running = pods.run(stopPods.signal);
  await pods.waitForCacheSync();

  const podsOf = (name: string) =>
    pods.cache.list().filter((p) => p.metadata?.labels?.['mycompany.com/nginx'] === name);
  const get = (name: string) => client.request<Nginx>({ path: `${collection}/${name}` });

  return {
    collection,
    pods,
    podsOf,
    get,
    stop: async () => {
      stopPods.abort();
      await running;
    },
    create: (name: string, spec: NginxSpec) =>
      client.request<Nginx>({
        method: 'POST',
        path: collection,
        body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name }, spec },
      }),
    patchSpec: (name: string, spec: Partial<NginxSpec> | Record<string, unknown>) =>
      client.request<Nginx>({
        method: 'PATCH',
        path: `${collection}/${name}`,
        contentType: 'application/merge-patch+json',
        body: { spec },
      }),

    /** Waits until status.canary matches `expected` (and returns the Nginx). */
    canaryAt: (name: string, expected: Partial<NginxCanaryStatus>, timeoutMs = 90_000) =>
      waitFor(
        `${namespace}/${name}: status.canary ${JSON.stringify(expected)}`,
        async () => {
          const nginx = await get(name);
          const canary = nginx.status?.canary;
          const matches =
            canary !== undefined &&
            Object.entries(expected).every(([k, v]) => canary[k as keyof NginxCanaryStatus] === v);
          return matches && nginx;
        },
        { timeoutMs, intervalMs: 200 },
      ),

    /** Waits until status.blueGreen matches `expected` (and returns the Nginx). */
    blueGreenAt: (name: string, expected: Partial<NginxBlueGreenStatus>, timeoutMs = 90_000) =>
      waitFor(
        `${namespace}/${name}: status.blueGreen ${JSON.stringify(expected)}`,
        async () => {
          const nginx = await get(name);
          const blueGreen = nginx.status?.blueGreen;
          const matches =
            blueGreen !== undefined &&
            Object.entries(expected).every(([k, v]) => blueGreen[k as keyof NginxBlueGreenStatus] === v);
          return matches && nginx;
        },
        { timeoutMs, intervalMs: 200 },
      ),

    /** Waits until `replicas` ready pods of `revision` are the only pods, and the status says the rollout is done. */
    rolledOut: (name: string, replicas: number, revision: string, timeoutMs = 90_000) =>
      waitFor(
        `${namespace}/${name}: ${replicas} ready pods of revision ${revision}, and nothing else`,
        async () => {
          const all = podsOf(name);
          const nginx = await get(name);
          const done =
            all.length === replicas &&
            all.every(
              (p) => isActive(p) && isReady(p) && p.metadata?.labels?.[LABEL_REVISION] === revision,
            ) &&
            nginx.status?.updatedReplicas === replicas &&
            nginx.status?.availableReplicas === replicas &&
            nginx.status?.updateRevision === revision &&
            nginx.status?.currentRevision === revision &&
            nginx.status?.observedGeneration === nginx.metadata.generation;
          return done && nginx;
        },
        { timeoutMs, intervalMs: 200 },
      ),

    /**
     * Watches one Nginx's pods and keeps the extremes of what every event left: most active pods (not terminating,
     * not finished), fewest ready among them — overall, and right after each deletion (what a controller answers
     * for: a pod may also turn unready by itself, say when the node controller marks a slow kwok node's pods) —
     * and whether two revisions ever existed at once. A failing test prints the whole timeline.
     */
    boundsWatch: (name: string) => {
      const seen = {
        maxActive: 0,
        minAvailable: Number.POSITIVE_INFINITY,
        minAvailableAfterDelete: Number.POSITIVE_INFINITY,
        events: 0,
        mixedRevisions: false,
      };
      const timeline: string[] = [];
      onTestFailed(() => console.log(`--- what the watch saw of ${name}:\n${timeline.join('\n')}`));
      const check = (deleted: boolean) => {
        const mine = podsOf(name);
        const active = mine.filter(isActive);
        const ready = active.filter(isReady).length;
        seen.events++;
        seen.maxActive = Math.max(seen.maxActive, active.length);
        seen.minAvailable = Math.min(seen.minAvailable, ready);
        if (deleted) seen.minAvailableAfterDelete = Math.min(seen.minAvailableAfterDelete, ready);
        if (new Set(mine.map((p) => p.metadata?.labels?.[LABEL_REVISION])).size > 1)
          seen.mixedRevisions = true;
        const shown = (p: V1Pod) =>
          `${p.metadata!.name!.slice(-5)}/${p.metadata?.labels?.[LABEL_REVISION]?.slice(0, 4)}${isReady(p) ? '+' : '-'}${p.metadata?.deletionTimestamp ? 'x' : ''}`;
        timeline.push(
          `${seen.events}${deleted ? ' (deletion)' : ''}: active ${active.length}, ready ${ready}: ${mine.map(shown).join(' ')}`,
        );
      };
      const mineNow = (pod: V1Pod) => pod.metadata?.labels?.['mycompany.com/nginx'] === name;
      const remove = pods.addEventHandler({
        add: () => check(false),
        update: (before, pod) =>
          check(
            mineNow(pod) && !before.metadata?.deletionTimestamp && Boolean(pod.metadata?.deletionTimestamp),
          ),
        delete: (gone) => {
          const pod = gone instanceof DeletedFinalStateUnknown ? gone.object : gone;
          check(mineNow(pod) && !pod.metadata?.deletionTimestamp);
        },
      });
      return { seen, stop: remove };
    },
  };
}
