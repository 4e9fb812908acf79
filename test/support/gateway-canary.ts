// Our Gateway API canary driven as a test or a benchmark row runs it: the user's HTTPRoute (one rule to
// `<name>-stable`), an Nginx whose canary writes its weights, and the weights as a watch of the route delivers them.
import type { KubeClient, KubeObject } from '../../libs/kube-runtime/src/index.js';
import { SharedInformer } from '../../libs/kube-runtime/src/index.js';
import type { Nginx, NginxCanaryStep } from '../../libs/nginx-api/src/index.js';
import type { RouteWeights, Timed } from './flagger.js';
import { waitFor } from './wait.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Gateway API objects, read loosely
type Body = KubeObject & Record<string, any>;

export const httpRoutes = (namespace: string) =>
  `/apis/gateway.networking.k8s.io/v1/namespaces/${namespace}/httproutes`;

/**
 * An HTTPRoute as a platform team writes it (field manager `platform-team`), attached to `gateway`: one
 * rule sending / to `<name>-stable`, and one of its own sending /api to another app.
 */
export function createStableRoute(
  client: KubeClient,
  namespace: string,
  name: string,
  gateway = 'edge',
): Promise<Body> {
  return client.request<Body>({
    method: 'POST',
    path: httpRoutes(namespace),
    query: { fieldManager: 'platform-team' },
    body: {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name },
      spec: {
        parentRefs: [{ name: gateway }],
        hostnames: [`${name}.example.com`],
        rules: [
          {
            matches: [{ path: { type: 'PathPrefix', value: '/' } }],
            backendRefs: [{ name: `${name}-stable`, port: 80 }],
          },
          {
            matches: [{ path: { type: 'PathPrefix', value: '/api' } }],
            backendRefs: [{ name: 'api', port: 80 }],
          },
        ],
      },
    },
  });
}

/** The stable and canary weights of the first rule naming `<name>-stable` (the canary's 0 while it has no ref). */
export function ourRouteWeights(route: Body, name: string): RouteWeights | undefined {
  for (const rule of (route.spec?.rules ?? []) as Body[]) {
    const refs = (rule.backendRefs ?? []) as { name: string; weight?: number }[];
    const stable = refs.find((ref) => ref.name === `${name}-stable`);
    const canary = refs.find((ref) => ref.name === `${name}-canary`);
    if (stable) return { primary: stable.weight ?? 1, canary: canary ? (canary.weight ?? 1) : 0 };
  }
  return undefined;
}

export interface OurCanaryRun {
  /** The route's weights at the trigger, then each change as the watch delivered it (repeats left out). */
  weights: Timed<RouteWeights>[];
  /** From the trigger until the canary was Promoted and the route back on the stable Service (100/0). */
  doneMs: number;
}

/**
 * Runs one canary of ours in `namespace` (where our controller runs): the route and an Nginx of `replicas` pods
 * with `steps` through it, rolled out on nginx:1.27; then the image changed to nginx:1.28, the route's weights
 * recorded from a watch until it is back at 100/0 with the canary Promoted.
 */
export async function runOurGatewayCanary(
  client: KubeClient,
  namespace: string,
  options: { name: string; steps: NginxCanaryStep[]; replicas?: number; timeoutMs?: number },
): Promise<OurCanaryRun> {
  const { name } = options;
  const timeoutMs = options.timeoutMs ?? 180_000;
  const nginxes = `/apis/mycompany.com/v1/namespaces/${namespace}/nginxes`;
  await createStableRoute(client, namespace, name);
  await client.request({
    method: 'POST',
    path: nginxes,
    body: {
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name },
      spec: {
        replicas: options.replicas ?? 2,
        image: 'nginx:1.27',
        strategy: {
          type: 'Canary',
          canary: { steps: options.steps, trafficRouting: { gatewayAPI: { httpRoute: name } } },
        },
      },
    },
  });
  const route = () => client.request<Body>({ path: `${httpRoutes(namespace)}/${name}` });
  const settled = async () => {
    const nginx = await client.request<Nginx>({ path: `${nginxes}/${name}` });
    const weights = ourRouteWeights(await route(), name);
    return nginx.status?.currentRevision === nginx.status?.updateRevision &&
      nginx.status?.availableReplicas === nginx.spec.replicas &&
      weights?.primary === 100
      ? nginx
      : false;
  };
  await waitFor(`${namespace}/${name} rolled out, the route at 100/0`, settled, {
    timeoutMs,
    intervalMs: 200,
  });

  const weights: Timed<RouteWeights>[] = [];
  let triggeredAt: number | undefined;
  const onRoute = (object: Body) => {
    const now = ourRouteWeights(object, name);
    const last = weights.at(-1)?.value;
    if (!now || (last && last.primary === now.primary && last.canary === now.canary)) return;
    weights.push({ atMs: triggeredAt === undefined ? 0 : performance.now() - triggeredAt, value: now });
  };
  const informer = new SharedInformer<Body>({
    client,
    resource: { group: 'gateway.networking.k8s.io', version: 'v1', plural: 'httproutes', namespace },
    kind: 'HTTPRoute',
    fieldSelector: `metadata.name=${name}`,
  });
  informer.addEventHandler({ add: onRoute, update: (_, current) => onRoute(current) });
  const stop = new AbortController();
  const running = informer.run(stop.signal);
  try {
    await informer.waitForCacheSync();
    triggeredAt = performance.now();
    const before = (await client.request<Nginx>({ path: `${nginxes}/${name}` })).status?.currentRevision;
    await client.request({
      method: 'PATCH',
      path: `${nginxes}/${name}`,
      contentType: 'application/merge-patch+json',
      body: { spec: { image: 'nginx:1.28' } },
    });
    await waitFor(
      `${namespace}/${name}: promoted, the route back at 100/0`,
      async () => {
        const done = await settled();
        return done && done.status?.currentRevision !== before && done.status?.canary?.phase === 'Promoted';
      },
      { timeoutMs, intervalMs: 100 },
    );
    const doneMs = performance.now() - triggeredAt;
    // The GET above can see the route back at 100/0 before the watch delivers that change: wait for the watch.
    await waitFor(`${namespace}/${name}: the watch to deliver the route back at 100/0`, async () => {
      const last = weights.at(-1)?.value;
      return last?.primary === 100 && last.canary === 0 && weights.length > 1;
    });
    return { weights, doneMs };
  } finally {
    stop.abort();
    await running.catch(() => {});
  }
}
