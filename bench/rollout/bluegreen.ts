import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { SharedInformer, type KubeClient, type KubeObject } from '../../libs/kube-runtime/src/index.js';
import { ANNOTATION_ABORT, ANNOTATION_PROMOTE, LABEL_REVISION } from '../../libs/nginx-api/src/index.js';
import { waitFor } from '../../test/support/wait.js';
import { OWNER_LABEL } from './kinds.js';

// The blue-green rows: N objects previewing a new image beside the active one, then every one promoted at once
// (and, on a second change, every one aborted at once), on our Nginx (strategy BlueGreen) and on Argo Rollouts'
// Rollout (strategy.blueGreen) with the same settings: no automatic promotion, the whole preview, a short scale-down
// delay. What is timed is what users wait for: from the requests until the active Service selects only the new
// revision (promote), and until the aborted revision's pods are gone (abort of a preview: neither side ever moved
// the active Service; both leave the preview Service on the aborted revision). Both sides switch a selector in one
// write; the times say how soon.

/** How long the old pods stay after a switch, on both sides (Argo's default is 30 s). */
export const BLUE_GREEN_SCALE_DOWN_DELAY_SECONDS = 5;

/** A Rollout's pod template hash label, which its controller adds to the Services' selectors. */
const ARGO_HASH = 'rollouts-pod-template-hash';

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any

/** What differs between our Nginx and Argo's Rollout in a blue-green race. */
export interface BlueGreenSide {
  /** As the results name it. */
  controller: string;
  collection: (namespace: string) => string;
  /** Services the user makes first (Argo's blue-green needs its two to exist). */
  services: (name: string) => V1Service[];
  manifest: (name: string, replicas: number, image: string) => unknown;
  imagePatch: (image: string) => unknown;
  /** The label a Service's selector names the revision by. */
  revisionLabel: string;
  /** The revision serving (stable) and the one rolled out (update), as the object's status says. */
  revisions: (object: Obj) => { stable?: string; update?: string };
  /** Whether the object's first revision is up and its active Service's controller settled. */
  settled: (object: Obj, replicas: number) => boolean;
  /** Whether the preview of the new revision is ready and waits for a promote. */
  previewWaiting: (object: Obj) => boolean;
  promote: (client: KubeClient, path: string, object: Obj) => Promise<unknown>;
  abort: (client: KubeClient, path: string, object: Obj) => Promise<unknown>;
  objectOf: (pod: V1Pod) => string | undefined;
}

const mergePatch = (client: KubeClient, path: string, body: unknown, subresource = '') =>
  client.request({
    method: 'PATCH',
    path: `${path}${subresource}`,
    contentType: 'application/merge-patch+json',
    body,
  });

export const NGINX_BLUE_GREEN: BlueGreenSide = {
  controller: 'Nginx controller (ours)',
  collection: (ns) => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`,
  services: () => [],
  manifest: (name, replicas, image) => ({
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name },
    spec: {
      replicas,
      image,
      strategy: {
        type: 'BlueGreen',
        blueGreen: {
          autoPromotionEnabled: false,
          scaleDownDelaySeconds: BLUE_GREEN_SCALE_DOWN_DELAY_SECONDS,
        },
      },
    },
  }),
  imagePatch: (image) => ({ spec: { image } }),
  revisionLabel: LABEL_REVISION,
  revisions: (o) => ({ stable: o.status?.currentRevision, update: o.status?.updateRevision }),
  settled: (o, replicas) =>
    o.status?.currentRevision !== undefined &&
    o.status.currentRevision === o.status.updateRevision &&
    o.status.availableReplicas === replicas &&
    o.status.observedGeneration === o.metadata?.generation,
  previewWaiting: (o) =>
    o.status?.blueGreen?.revision === o.status?.updateRevision && o.status?.blueGreen?.phase === 'Paused',
  // The annotations our REST API writes (and kubectl can): `<revision>/full` promotes, `<revision>` aborts.
  promote: (client, path, o) =>
    mergePatch(client, path, {
      metadata: { annotations: { [ANNOTATION_PROMOTE]: `${o.status!.updateRevision}/full` } },
    }),
  abort: (client, path, o) =>
    mergePatch(client, path, { metadata: { annotations: { [ANNOTATION_ABORT]: o.status!.updateRevision } } }),
  objectOf: (pod) => pod.metadata?.labels?.['mycompany.com/nginx'],
};

const container = (image: string) => ({ name: 'nginx', image, ports: [{ name: 'http', containerPort: 80 }] });
const argoService = (name: string): V1Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name },
  spec: {
    selector: { app: 'bench', [OWNER_LABEL]: name.replace(/-(active|preview)$/, '') },
    ports: [{ name: 'http', port: 80, targetPort: 'http' as never }],
  },
});

/** Argo Rollouts' Rollout with its two Services, promoted and aborted as `kubectl argo rollouts` does. */
export const ARGO_BLUE_GREEN: BlueGreenSide = {
  controller: 'Argo Rollouts controller (+ kube-controller-manager for its ReplicaSets)',
  collection: (ns) => `/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts`,
  services: (name) => [argoService(`${name}-active`), argoService(`${name}-preview`)],
  manifest: (name, replicas, image) => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'bench', [OWNER_LABEL]: name } },
      template: {
        metadata: { labels: { app: 'bench', [OWNER_LABEL]: name } },
        spec: { containers: [container(image)] },
      },
      strategy: {
        blueGreen: {
          activeService: `${name}-active`,
          previewService: `${name}-preview`,
          autoPromotionEnabled: false,
          scaleDownDelaySeconds: BLUE_GREEN_SCALE_DOWN_DELAY_SECONDS,
          // 0 would keep the aborted preview's pods; 1 s is the nearest to ours (at once).
          abortScaleDownDelaySeconds: 1,
        },
      },
    },
  }),
  imagePatch: (image) => ({ spec: { template: { spec: { containers: [container(image)] } } } }),
  revisionLabel: ARGO_HASH,
  revisions: (o) => ({ stable: o.status?.stableRS, update: o.status?.currentPodHash }),
  settled: (o, replicas) =>
    o.status?.phase === 'Healthy' &&
    o.status.stableRS !== undefined &&
    o.status.stableRS === o.status.currentPodHash &&
    o.status.availableReplicas === replicas &&
    String(o.status.observedGeneration) === String(o.metadata?.generation),
  previewWaiting: (o) =>
    (o.status?.pauseConditions ?? []).some((c: { reason: string }) => c.reason === 'BlueGreenPause') &&
    o.status?.blueGreen?.previewSelector === o.status?.currentPodHash,
  // `kubectl argo rollouts promote`: the pause conditions cleared through the status subresource.
  promote: (client, path) => mergePatch(client, path, { status: { pauseConditions: null } }, '/status'),
  // `kubectl argo rollouts abort`.
  abort: (client, path) => mergePatch(client, path, { status: { abort: true } }, '/status'),
  objectOf: (pod) => pod.metadata?.labels?.[OWNER_LABEL],
};

/** One race's figures, in seconds from the requests (all sent at once). */
export interface BlueGreenTimes {
  /** Until each object's active Service selected only the intended revision: median and slowest. */
  switchedP50: number;
  switchedMax: number;
  /** Abort: until each object's new pods were all gone (deleted, not merely terminating). */
  podsGoneP50?: number;
  podsGoneMax?: number;
  /** Selector writes seen on the active Services during the race (one per object is a switch in one write). */
  activeSelectorWrites: number;
}

/** The median and the largest of `values` (seconds), NaN for none. */
export function medianAndMax(values: readonly number[]): { p50: number; max: number } {
  if (values.length === 0) return { p50: NaN, max: NaN };
  const sorted = [...values].sort((a, b) => a - b);
  return { p50: sorted[Math.floor((sorted.length - 1) / 2)]!, max: sorted[sorted.length - 1]! };
}

/** A race's result on one side: the promote of every object, then the abort of every object's next change. */
export interface BlueGreenRace {
  controller: string;
  objects: number;
  replicas: number;
  promote: BlueGreenTimes;
  abort: BlueGreenTimes;
  error?: string;
}

/**
 * Runs the race on `side` in `namespace` (its controller already running): `count` objects of `replicas` pods,
 * rolled out, then changed (nginx:1.28) and promoted all at once once every preview waits; then changed again
 * (nginx:1.29) and aborted all at once.
 */
export async function raceBlueGreen(
  client: KubeClient,
  side: BlueGreenSide,
  namespace: string,
  options: { count: number; replicas: number; timeoutMs: number },
): Promise<BlueGreenRace> {
  const names = Array.from({ length: options.count }, (_, i) => `bg-${i}`);
  const collection = side.collection(namespace);
  const services = new SharedInformer<V1Service & KubeObject>({
    client,
    resource: { group: '', version: 'v1', plural: 'services', namespace },
    kind: 'Service',
  });
  const pods = new SharedInformer<V1Pod & KubeObject>({
    client,
    resource: { group: '', version: 'v1', plural: 'pods', namespace },
    kind: 'Pod',
  });
  const stop = new AbortController();
  const running = [services.run(stop.signal), pods.run(stop.signal)];
  await Promise.all([services.waitForCacheSync(), pods.waitForCacheSync()]);
  /** When each active Service's selector last changed, and how many times it did, from `since`. */
  let activeWrites = 0;
  const selectedAt = new Map<string, { revision?: string; at: number }>();
  services.addEventHandler({
    update: (before, after) => {
      const name = after.metadata?.name ?? '';
      const revision = after.spec?.selector?.[side.revisionLabel];
      if (revision === before.spec?.selector?.[side.revisionLabel]) return;
      if (name.endsWith('-active')) activeWrites++;
      selectedAt.set(name, { revision, at: Date.now() });
    },
  });
  const selected = (service: string) =>
    services.cache.get(`${namespace}/${service}`)?.spec?.selector?.[side.revisionLabel];
  const list = async () =>
    new Map(
      ((await client.request<{ items: Obj[] }>({ path: collection })).items ?? []).map((o) => [
        o.metadata!.name!,
        o,
      ]),
    );
  const until = (what: string, test: (objects: Map<string, Obj>) => boolean) =>
    waitFor(what, async () => test(await list()), { timeoutMs: options.timeoutMs, intervalMs: 250 });
  try {
    for (const name of names)
      for (const service of side.services(name))
        await client.request({
          method: 'POST',
          path: `/api/v1/namespaces/${namespace}/services`,
          body: service,
        });
    await Promise.all(
      names.map((name) =>
        client.request({
          method: 'POST',
          path: collection,
          body: side.manifest(name, options.replicas, 'nginx:1.27'),
        }),
      ),
    );
    await until('every object rolled out', (objects) =>
      names.every((n) => {
        const o = objects.get(n);
        return (
          o !== undefined &&
          side.settled(o, options.replicas) &&
          selected(`${n}-active`) === side.revisions(o).stable
        );
      }),
    );

    const race = async (image: string, request: 'promote' | 'abort'): Promise<BlueGreenTimes> => {
      await Promise.all(
        names.map((n) =>
          client.request({
            method: 'PATCH',
            path: `${collection}/${n}`,
            contentType: 'application/merge-patch+json',
            body: side.imagePatch(image),
          }),
        ),
      );
      const waiting = await waitFor(
        `every preview of ${image} waiting`,
        async () => {
          const objects = await list();
          return names.every((n) => objects.get(n) && side.previewWaiting(objects.get(n)!)) && objects;
        },
        { timeoutMs: options.timeoutMs, intervalMs: 250 },
      );
      const intended = new Map(
        names.map((n) => {
          const { stable, update } = side.revisions(waiting.get(n)!);
          return [n, { old: stable!, fresh: update! }];
        }),
      );
      activeWrites = 0;
      const start = Date.now();
      await Promise.all(names.map((n) => side[request](client, `${collection}/${n}`, waiting.get(n)!)));
      const switched = new Map<string, number>();
      const gone = new Map<string, number>();
      await waitFor(
        `every object ${request === 'promote' ? 'promoted' : 'aborted'}`,
        async () => {
          for (const n of names) {
            const { old, fresh } = intended.get(n)!;
            const target = request === 'promote' ? fresh : old;
            const active = `${n}-active`;
            if (!switched.has(n) && selected(active) === target)
              switched.set(n, Math.max(selectedAt.get(active)?.at ?? start, start));
            const freshPods = pods.cache
              .list()
              .filter((p) => side.objectOf(p) === n && p.metadata?.labels?.[side.revisionLabel] === fresh);
            if (request === 'abort' && !gone.has(n) && freshPods.length === 0) gone.set(n, Date.now());
          }
          return switched.size === names.length && (request === 'promote' || gone.size === names.length);
        },
        { timeoutMs: options.timeoutMs, intervalMs: 50 },
      );
      const seconds = (at: Map<string, number>) =>
        medianAndMax([...at.values()].map((t) => (t - start) / 1000));
      const s = seconds(switched);
      const g = request === 'abort' ? seconds(gone) : undefined;
      return {
        switchedP50: s.p50,
        switchedMax: s.max,
        ...(g ? { podsGoneP50: g.p50, podsGoneMax: g.max } : {}),
        activeSelectorWrites: activeWrites,
      };
    };

    const promote = await race('nginx:1.28', 'promote');
    // The promoted revision settles (its old pods gone after the delay) before the next change.
    await until('every object settled on the promoted revision', (objects) =>
      names.every((n) => objects.get(n) !== undefined && side.settled(objects.get(n)!, options.replicas)),
    );
    const abort = await race('nginx:1.29', 'abort');
    return { controller: side.controller, objects: names.length, replicas: options.replicas, promote, abort };
  } finally {
    stop.abort();
    await Promise.allSettled(running);
  }
}

/** The blue-green rows as a Markdown table. */
export function blueGreenTable(races: readonly BlueGreenRace[]): string {
  const f = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '—' : n.toFixed(2));
  const rows = [
    '| controller | objects × pods | promote: active switched p50 / max s | abort: new pods gone p50 / max s | active selector writes (promote / abort) |',
    '| --- | --- | ---: | ---: | --- |',
  ];
  for (const r of races)
    rows.push(
      r.error
        ? `| ${r.controller} | ${r.objects} × ${r.replicas} | — | — | ${r.error} |`
        : `| ${r.controller} | ${r.objects} × ${r.replicas} | **${f(r.promote.switchedP50)}** / ${f(r.promote.switchedMax)} | ` +
            `**${f(r.abort.podsGoneP50)}** / ${f(r.abort.podsGoneMax)} | ` +
            `${r.promote.activeSelectorWrites} / ${r.abort.activeSelectorWrites} |`,
    );
  return rows.join('\n');
}
