import type { CoreV1Event, V1Pod, V1ResourceQuota } from '@kubernetes/client-node';
import {
  DeletedFinalStateUnknown,
  KubeApiError,
  SharedInformer,
  type KubeClient,
  type KubeObject,
} from '../../libs/kube-runtime/src/index.js';
import type { Nginx, NginxSpec } from '../../libs/nginx-api/src/index.js';
import { isActive } from '../../apps/api/src/controller/pod-plan.js';
import { clusterScript, readPid, runningAuditLog, stopKubeApiServer } from './cluster-processes.js';
import { staysTrue, uniqueName, waitFor } from './wait.js';

/**
 * Pods that count toward an Nginx's replicas (not being deleted, not finished: Failed or Succeeded), by the
 * controller's own rule (apps/api/src/controller/pod-plan.ts).
 */
export const active = (pods: readonly V1Pod[]) => pods.filter(isActive);
export const running = (pods: readonly V1Pod[]) => active(pods).filter((p) => p.status?.phase === 'Running');
export const names = (pods: readonly V1Pod[]) => pods.map((p) => p.metadata!.name!).sort();

/**
 * Stops kube-apiserver (stopKubeApiServer: SIGTERM, SIGKILL after a grace) and starts it again with the cluster script (which
 * starts only what is not running), as test/kube-runtime/informer.test.ts does, with `env` for the script (e.g.
 * CLUSTER_AUDIT_LOG). It keeps writing the audit log it wrote (the files reading it rely on one: see
 * cluster-audit-log.setup.ts) unless `env` says otherwise. Returns how long it was gone.
 */
export async function restartKubeApiServer(
  env: Record<string, string> = {},
): Promise<{ stopMs: number; downMs: number }> {
  const pid = readPid('kube-apiserver');
  const auditLog = runningAuditLog();
  const started = performance.now();
  await stopKubeApiServer(pid);
  const stopped = performance.now();
  await clusterScript('up', { ...(auditLog ? { CLUSTER_AUDIT_LOG: auditLog } : {}), ...env });
  const back = performance.now();
  if (readPid('kube-apiserver') === pid) throw new Error('kube-apiserver was not restarted');
  return { stopMs: Math.round(stopped - started), downMs: Math.round(back - stopped) };
}

/**
 * Creates a namespace for one test and waits for its default service account (pods are refused before it). With
 * `cleanups`, also registers its deletion there (for the test's afterEach to run).
 */
export async function createNamespace(
  client: KubeClient,
  prefix: string,
  cleanups?: (() => Promise<unknown>)[],
): Promise<string> {
  const name = uniqueName(prefix);
  cleanups?.push(() => deleteNamespace(client, name));
  return createNamedNamespace(client, name, { 'mycompany.com/test': 'nginx-controller-operations' });
}

/**
 * Creates the namespace `name` with `labels` and waits for its default service account: kube-controller-manager
 * makes it, and the API server refuses pods until it exists. After an API server restart kube-controller-manager's
 * watches may be backing off for a while: after 20 s the test makes the same object itself.
 */
export async function createNamedNamespace(
  client: KubeClient,
  name: string,
  labels: Record<string, string>,
): Promise<string> {
  await client.request({
    method: 'POST',
    path: '/api/v1/namespaces',
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } },
  });
  const accounts = `/api/v1/namespaces/${name}/serviceaccounts`;
  const exists = () => client.request({ path: `${accounts}/default` }).then(() => true);
  await waitFor(`the default service account in ${name}`, exists, { timeoutMs: 20_000 }).catch(() =>
    client
      .request({ method: 'POST', path: accounts, body: { metadata: { name: 'default' } } })
      .catch((error: unknown) => {
        if (!(error instanceof KubeApiError && error.code === 409)) throw error;
      }),
  );
  return name;
}

/** Deletes a namespace without waiting for it to go (the namespace controller finishes the job). */
export async function deleteNamespace(client: KubeClient, name: string): Promise<void> {
  await client.request({ method: 'DELETE', path: `/api/v1/namespaces/${name}` }).catch(() => {});
}

/** Nginx objects, their pods and their Events in one namespace. */
export function nginxesIn(client: KubeClient, namespace: string) {
  const collection = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;
  const podsPath = `/api/v1/namespaces/${namespace}/pods`;

  const get = (name: string) => client.request<Nginx>({ path: `${collection}/${name}` });

  const pods = async (name: string): Promise<V1Pod[]> =>
    (
      await client.request<{ items: V1Pod[] }>({
        path: podsPath,
        query: { labelSelector: `mycompany.com/nginx=${name}` },
      })
    ).items;

  /**
   * Waits until exactly `count` pods run, none extra, and the status says so for the current generation; resolves
   * with the Nginx. The pods are listed from the API server unless `from` gives them (a watch's cache, say, so that
   * what the watch saw is up to date when this resolves).
   */
  const converged = async (
    name: string,
    count: number,
    timeoutMs = 30_000,
    from: () => readonly V1Pod[] | Promise<readonly V1Pod[]> = () => pods(name),
  ) =>
    waitFor(
      `${namespace}/${name} at exactly ${count} running pods with status.readyReplicas ${count}`,
      async () => {
        const [all, nginx] = await Promise.all([from(), get(name)]);
        return (
          active(all).length === count &&
          running(all).length === count &&
          nginx.status?.readyReplicas === count &&
          nginx.status?.replicas === count &&
          nginx.status?.observedGeneration === nginx.metadata.generation &&
          nginx
        );
      },
      { timeoutMs, intervalMs: 100 },
    );

  /** Samples for `ms` that the count stays exactly `count` running pods (nothing extra arrives later). */
  const stays = (name: string, count: number, ms = 3000) =>
    staysTrue(
      `${namespace}/${name} at ${count} running pods`,
      async () => {
        const all = await pods(name);
        if (active(all).length !== count || running(all).length !== count)
          throw new Error(
            `${namespace}/${name} left ${count} pods: ${active(all).length} active, ${running(all).length} running`,
          );
        return true;
      },
      ms,
      { intervalMs: 250 },
    );

  /**
   * The positive event a "nothing more happens" check waits for, instead of a sleep: a marker Nginx of 0 replicas
   * created now, and its status written by the controller for its generation. By then the controller has been
   * running past everything queued before it; then exactly `count` pods of `name` must still run. The marker is
   * deleted again (it has no pods, so it counts toward no quota).
   */
  const staysPastMarker = async (name: string, count: number, timeoutMs = 30_000) => {
    const marker = uniqueName('marker');
    await client.request<Nginx>({
      method: 'POST',
      path: collection,
      body: {
        apiVersion: 'mycompany.com/v1',
        kind: 'Nginx',
        metadata: { name: marker },
        spec: { replicas: 0 },
      },
    });
    try {
      await waitFor(
        `the controller's status for the marker ${namespace}/${marker}`,
        async () => {
          const seen = await get(marker);
          return (
            seen.status?.observedGeneration === seen.metadata.generation && (seen.status?.replicas ?? 0) === 0
          );
        },
        { timeoutMs },
      );
    } finally {
      await client.request({ method: 'DELETE', path: `${collection}/${marker}` }).catch(() => {});
    }
    const all = await pods(name);
    if (active(all).length !== count || running(all).length !== count)
      throw new Error(
        `${namespace}/${name} left ${count} pods by the time the marker was reconciled: ` +
          `${active(all).length} active, ${running(all).length} running`,
      );
  };

  /** Merge-patches the spec of `name` (null removes a field). */
  const patchSpec = (name: string, spec: Record<string, unknown>) =>
    client.request<Nginx>({
      method: 'PATCH',
      path: `${collection}/${name}`,
      contentType: 'application/merge-patch+json',
      body: { spec },
    });

  return {
    namespace,
    get,
    pods,
    converged,
    stays,
    staysPastMarker,
    /** Creates the Nginx `name` with `spec` (a number: `{replicas: spec}`). */
    create: (name: string, spec: number | NginxSpec) =>
      client.request<Nginx>({
        method: 'POST',
        path: collection,
        body: {
          apiVersion: 'mycompany.com/v1',
          kind: 'Nginx',
          metadata: { name },
          spec: typeof spec === 'number' ? { replicas: spec } : spec,
        },
      }),
    patchSpec,
    scale: (name: string, replicas: number) => patchSpec(name, { replicas }),
    delete: (name: string) =>
      client.request({ method: 'DELETE', path: `${collection}/${name}` }).catch(() => {}),
    /** The Events about one object (by uid). */
    events: async (uid: string) =>
      (
        await client.request<{ items: CoreV1Event[] }>({
          path: `/api/v1/namespaces/${namespace}/events`,
          query: { fieldSelector: `involvedObject.uid=${uid}` },
        })
      ).items,
  };
}

/**
 * Creates a ResourceQuota `pods` admitting `pods` pods in `namespace`, and waits until the quota controller has
 * counted usage (until then quota admission refuses every pod). Returns the quota's path.
 */
export async function createPodQuota(client: KubeClient, namespace: string, pods: number): Promise<string> {
  const collection = `/api/v1/namespaces/${namespace}/resourcequotas`;
  await client.request({
    method: 'POST',
    path: collection,
    body: {
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'pods' },
      spec: { hard: { pods: String(pods) } },
    },
  });
  await waitFor(
    'the quota controller to count usage',
    async () => {
      const quota = await client.request<V1ResourceQuota>({ path: `${collection}/pods` });
      return quota.status?.hard?.pods === String(pods) && quota.status?.used?.pods !== undefined;
    },
    { timeoutMs: 30_000 },
  );
  return `${collection}/pods`;
}

/**
 * Records every pod ever seen in a namespace (by uid), so a pod created and deleted again is not missed, and the
 * uids of those deleted (marked for deletion or gone).
 */
export async function podRecorder(client: KubeClient, namespace: string, labelSelector?: string) {
  const informer = new SharedInformer<V1Pod & KubeObject>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace },
    kind: 'Pod',
    labelSelector,
  });
  const seen = new Map<string, V1Pod>();
  const deleted = new Set<string>();
  informer.addEventHandler({
    add: (pod) => void seen.set(pod.metadata!.uid!, pod),
    update: (_, pod) => {
      if (pod.metadata?.deletionTimestamp) deleted.add(pod.metadata.uid!);
    },
    delete: (pod) => {
      const gone = pod instanceof DeletedFinalStateUnknown ? pod.object : pod;
      deleted.add(gone.metadata!.uid!);
    },
  });
  const abort = new AbortController();
  const run = informer.run(abort.signal);
  await informer.waitForCacheSync();
  return {
    seen,
    deleted,
    cache: informer.cache,
    stop: async () => {
      abort.abort();
      await run;
    },
  };
}
