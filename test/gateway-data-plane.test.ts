// A real Gateway API data plane on the local cluster (issue 46): Traefik (tools/traefik) runs out of cluster as the
// Gateway implementation, and kwok's pods answer on their IPs (test/support/data-plane.ts adds them to the
// loopback device: root needed). Requests sent through Traefik are counted by the revision that answered, so an
// HTTPRoute's backendRef weights and header matches can be checked as traffic, not only as the object's fields.
// Needs Gateway API's CRDs (tools/cluster/up.sh installs them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL_REVISION } from '../libs/nginx-api/src/index.js';
import { countByRevision, servePods, type PodBackends } from './support/data-plane.js';
import { createNamespace } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import {
  conditionOf,
  startTraefik,
  TRAEFIK_CONTROLLER_NAME,
  type TraefikGateway,
} from './support/traefik.js';
import { waitFor } from './support/wait.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { createStableRoute } from './support/gateway-canary.js';
import { revisionOfSpec } from './support/rollouts.js';
import type { NginxSpec } from '../libs/nginx-api/src/index.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let ns: string;
let backends: PodBackends;
let traefik: TraefikGateway;
let cp: ControlPlane;

const APP = 'shop';
const REVISIONS = ['a', 'b'] as const;
const REPLICAS = 2;
const N = 500;
/** How far a revision's share may be from its weight: 5 % of N (over 3 standard deviations of a random split). */
const TOLERANCE = 0.05 * N;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Gateway API objects, read loosely
type Body = Record<string, any>;
const routePath = () => `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes/${APP}`;

const deployment = (revision: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: `${APP}-${revision}` },
  spec: {
    replicas: REPLICAS,
    selector: { matchLabels: { app: APP, [LABEL_REVISION]: revision } },
    template: {
      metadata: { labels: { app: APP, [LABEL_REVISION]: revision } },
      spec: {
        containers: [
          { name: 'web', image: 'nginx', ports: [{ name: 'http', containerPort: backends.port }] },
        ],
      },
    },
  },
});
const service = (revision: string) => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: `${APP}-${revision}` },
  spec: {
    selector: { app: APP, [LABEL_REVISION]: revision },
    ports: [{ name: 'http', port: 80, targetPort: backends.port }],
  },
});
/** The route's main rule: every path, to both revisions' Services with these weights. */
const weightedRule = (weights: Record<(typeof REVISIONS)[number], number>) => ({
  matches: [{ path: { type: 'PathPrefix', value: '/' } }],
  backendRefs: REVISIONS.map((revision) => ({
    name: `${APP}-${revision}`,
    port: 80,
    weight: weights[revision],
  })),
});
/** Replaces the route's rules (a merge patch replaces the list whole). */
const setRules = (rules: Body[]) =>
  client.request({
    method: 'PATCH',
    path: routePath(),
    contentType: 'application/merge-patch+json',
    body: { spec: { rules } },
  });

beforeAll(async () => {
  ns = await createNamespace(client, 'gateway-data-plane', cleanups);
  backends = await servePods(client, ns);
  cleanups.push(() => backends.stop());
  traefik = await startTraefik(client, ns);
  cleanups.push(() => traefik.stop());
  cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  cleanups.push(() => cp.stop());
  for (const revision of REVISIONS) {
    await client.request({
      method: 'POST',
      path: `/apis/apps/v1/namespaces/${ns}/deployments`,
      body: deployment(revision),
    });
    await client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/services`,
      body: service(revision),
    });
  }
  await waitFor(
    `${REVISIONS.length * REPLICAS} pods served on their IPs`,
    () => backends.serving().size === REVISIONS.length * REPLICAS,
  );
  // Room for Traefik's first build (~11 min) when tools/traefik/build.sh has not run yet.
}, 900_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

/**
 * N requests counted by revision, once every request of a probe is answered by a pod: Traefik may run new weights
 * before it has a Service's endpoints, and a pod kwok made Ready may not be served on its IP yet (503, 502).
 */
async function countWhenAnswered(n: number, headers: Record<string, string> = {}) {
  await waitFor(
    `every probe answered by a pod (${JSON.stringify(headers)})`,
    async () =>
      Object.keys(await countByRevision(traefik.url, 40, headers)).every((key) => !key.startsWith('HTTP ')),
    { timeoutMs: 30_000, intervalMs: 200 },
  );
  return countByRevision(traefik.url, n, headers);
}

/** Counts N requests through Traefik once it runs the route's rule with these weights (by revision). */
async function countWhenWeighted(weights: Record<string, number>) {
  const byService = Object.fromEntries(
    Object.entries(weights).map(([revision, w]) => [`${APP}-${revision}`, w]),
  );
  await waitFor(
    `Traefik to run the weights ${JSON.stringify(byService)}`,
    async () =>
      (await traefik.weights(ns, APP)).some((rule) => JSON.stringify(rule) === JSON.stringify(byService)),
    { timeoutMs: 20_000 },
  );
  return countWhenAnswered(N);
}

function expectShares(counts: Record<string, number>, weights: Record<string, number>) {
  const total = Object.values(weights).reduce((sum, weight) => sum + weight, 0);
  expect(Object.keys(counts).sort()).toEqual(
    Object.keys(weights)
      .filter((r) => weights[r]! > 0)
      .sort(),
  );
  for (const [revision, weight] of Object.entries(weights)) {
    expect(
      Math.abs((counts[revision] ?? 0) - (N * weight) / total),
      `${revision}: ${JSON.stringify(counts)}`,
    ).toBeLessThanOrEqual(TOLERANCE);
  }
}

describe('Traefik as the Gateway API data plane', () => {
  it('accepts the HTTPRoute and splits requests by its backendRef weights, 80/20 then 50/50', async () => {
    await client.request({
      method: 'POST',
      path: `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes`,
      body: {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name: APP },
        spec: {
          parentRefs: [{ name: traefik.gateway }],
          rules: [weightedRule({ a: 80, b: 20 })],
        },
      },
    });
    const parent = await waitFor('Traefik to write the HTTPRoute status', async () => {
      const route = await client.request<Body>({ path: routePath() });
      const status = (route.status?.parents as Body[] | undefined)?.find(
        (p) => p.parentRef?.name === traefik.gateway && p.controllerName === TRAEFIK_CONTROLLER_NAME,
      );
      return status && conditionOf(status.conditions, 'ResolvedRefs') ? status : undefined;
    });
    expect(conditionOf(parent.conditions, 'Accepted')?.status).toBe('True');
    expect(conditionOf(parent.conditions, 'ResolvedRefs')?.status).toBe('True');

    const eightyTwenty = await countWhenWeighted({ a: 80, b: 20 });
    console.log('80/20 →', eightyTwenty);
    expectShares(eightyTwenty, { a: 80, b: 20 });

    await setRules([weightedRule({ a: 50, b: 50 })]);
    const before = backends.answered();
    const fiftyFifty = await countWhenWeighted({ a: 50, b: 50 });
    console.log('50/50 →', fiftyFifty);
    expectShares(fiftyFifty, { a: 50, b: 50 });
    // Traefik balances over each Service's EndpointSlices: every pod of both revisions answered some.
    const byPod = [...backends.answered()].map(([pod, n]) => [pod, n - (before.get(pod) ?? 0)] as const);
    console.log('50/50 by pod →', JSON.stringify(Object.fromEntries(byPod)));
    expect(byPod.filter(([, n]) => n > 0)).toHaveLength(REVISIONS.length * REPLICAS);
  });

  it('sends requests that match a header rule to its backend only, the others by the weights', async () => {
    await setRules([
      weightedRule({ a: 50, b: 50 }),
      {
        matches: [{ headers: [{ name: 'x-beta', value: 'yes' }] }],
        backendRefs: [{ name: `${APP}-b`, port: 80 }],
      },
    ]);
    await waitFor('Traefik to route x-beta: yes to b', async () => {
      const counts = await countByRevision(traefik.url, 20, { 'x-beta': 'yes' });
      return counts.b === 20;
    });
    const beta = await countWhenAnswered(N, { 'x-beta': 'yes' });
    const others = await countWhenAnswered(N, { 'x-beta': 'no' });
    console.log('x-beta: yes →', beta, '; x-beta: no →', others);
    expect(beta).toEqual({ b: N });
    expectShares(others, { a: 50, b: 50 });
  });
});

describe('our Gateway API canary through Traefik', () => {
  const name = 'web';
  const nginxes = () => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`;
  const canaryAt = (expected: Record<string, unknown>) =>
    waitFor(`${name}: status.canary ${JSON.stringify(expected)}`, async () => {
      const canary = (await client.request<Body>({ path: `${nginxes()}/${name}` })).status?.canary;
      return canary && Object.entries(expected).every(([k, v]) => canary[k] === v);
    });
  /** N requests counted by revision once Traefik runs these weights on our Services. */
  const countAt = async (stable: number, canary: number) => {
    const wanted = JSON.stringify({ [`${name}-stable`]: stable, [`${name}-canary`]: canary });
    await waitFor(`Traefik to run ${wanted}`, async () =>
      (await traefik.weights(ns, name)).some((rule) => JSON.stringify(rule) === wanted),
    );
    return countWhenAnswered(N, HOST);
  };
  const HOST = { host: `${name}.example.com` };

  it('serves each step’s share of the requests from the canary revision, and a header route from it alone', async () => {
    const spec = {
      replicas: 4,
      image: 'nginx:1.27',
      port: backends.port,
      strategy: {
        type: 'Canary',
        canary: {
          trafficRouting: { gatewayAPI: { httpRoute: name } },
          steps: [
            { setWeight: 20 },
            { pause: {} },
            {
              setHeaderRoute: {
                name: 'beta',
                match: [{ headerName: 'x-beta', headerValue: { exact: 'yes' } }],
              },
            },
            { setWeight: 50 },
            { pause: {} },
          ],
        },
      },
    } as NginxSpec;
    const stable = revisionOfSpec(spec);
    const update = revisionOfSpec({ ...spec, image: 'nginx:1.28' });
    // The route's other rule sends /api to a Service `api` with no endpoints: Traefik cannot resolve that one.
    await client.request({
      method: 'POST',
      path: `/api/v1/namespaces/${ns}/services`,
      body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'api' }, spec: { ports: [{ port: 80 }] } },
    });
    await createStableRoute(client, ns, name, traefik.gateway);
    await client.request({
      method: 'POST',
      path: nginxes(),
      body: { apiVersion: 'mycompany.com/v1', kind: 'Nginx', metadata: { name }, spec },
    });
    expect(await countAt(100, 0)).toEqual({ [stable]: N });

    await client.request({
      method: 'PATCH',
      path: `${nginxes()}/${name}`,
      contentType: 'application/merge-patch+json',
      body: { spec: { image: 'nginx:1.28' } },
    });
    await canaryAt({ step: 1, phase: 'Paused' });
    const twenty = await countAt(80, 20);
    console.log('our canary at 20 →', twenty);
    expectShares(twenty, { [stable]: 80, [update]: 20 });

    const promote = (step: number) =>
      cp.as('editor')(`/controlplane/v1/namespaces/${ns}/nginxes/${name}/promote?step=${step}`, {
        method: 'POST',
      });
    expect((await promote(1)).status).toBe(200);
    await canaryAt({ step: 4, phase: 'Paused' });
    const fifty = await countAt(50, 50);
    const beta = await countWhenAnswered(N, { ...HOST, 'x-beta': 'yes' });
    console.log('our canary at 50 →', fifty, '; x-beta: yes →', beta);
    expectShares(fifty, { [stable]: 50, [update]: 50 });
    expect(beta).toEqual({ [update]: N });

    // The route's status as Traefik wrote it, read back into status.canary: accepted, one backendRef (the
    // platform team's `api`, not ours) unresolved, and why.
    const status = (await client.request<Body>({ path: `${nginxes()}/${name}` })).status;
    expect(status.canary.httpRoute).toEqual({
      name,
      namespace: ns,
      accepted: 'True',
      resolvedRefs: 'False',
      message: `Cannot load HTTPBackendRef ${ns}/api: endpointslices not found`,
    });

    expect((await promote(4)).status).toBe(200);
    await canaryAt({ phase: 'Promoted' });
    expect(await countAt(100, 0)).toEqual({ [update]: N });
  });
});
