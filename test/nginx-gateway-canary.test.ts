// Canaries that shift traffic through a Gateway API HTTPRoute (issue 46), on the local cluster with Gateway API's
// standard CRDs (tools/gateway-api/crds.sh, installed by tools/cluster/up.sh), the controller and the REST API in
// one process watching only this file's namespace. At every step the route's weights and matches are read back
// from kube-apiserver; an abort sets the weight to 0 before any canary pod goes; a route deleted mid-canary pauses
// it (and a route put back resumes it); another manager's edits are kept beside ours, and our weights restored; a
// route in another namespace waits for a ReferenceGrant; a new leader mid-step keeps the weight without a write.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { ANNOTATION_ABORT, LABEL_REVISION, type NginxSpec } from '../libs/nginx-api/src/index.js';
import { isActive } from '../apps/api/src/controller/pod-plan.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { HEADLESS, handOver, leaderAndStandby, startApp } from './support/app-process.js';
import { createNamespace } from './support/operations.js';
import { createStableRoute, httpRoutes } from './support/gateway-canary.js';
import { revisionOfSpec, rolloutsIn } from './support/rollouts.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let ns: string;
let cp: ControlPlane;
let rollouts: Awaited<ReturnType<typeof rolloutsIn>>;

beforeAll(async () => {
  ns = await createNamespace(client, 'gateway-canary', cleanups);
  cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  rollouts = await rolloutsIn(client, ns);
}, 90_000);

afterAll(async () => {
  await rollouts?.stop();
  await cp?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Gateway API objects, read loosely
type Body = Record<string, any>;
const routes = () => httpRoutes(ns);

const createRoute = (name: string) => createStableRoute(client, ns, name);
const getRoute = (name: string) => client.request<Body>({ path: `${routes()}/${name}` });

/** The route as weights and matches: `stable/canary` of the first rule, and the header rules' names and headers. */
function shape(route: Body) {
  const [main, ...rest] = route.spec.rules as Body[];
  const weight = (service: string) => main!.backendRefs.find((r: Body) => r.name === service)?.weight;
  const name = route.metadata.name as string;
  return {
    weights: `${weight(`${name}-stable`)}/${weight(`${name}-canary`) ?? '-'}`,
    headerRules: rest
      .filter((rule) => rule.backendRefs.every((r: Body) => r.name === `${name}-canary`))
      .map((rule) => ({ name: rule.name, headers: rule.matches[0].headers })),
    otherRules: rest.filter((rule) => rule.backendRefs.some((r: Body) => r.name === 'api')).length,
  };
}

/** Every distinct route shape seen while polling, in order. */
function routeShapes(name: string) {
  const seen: string[] = [];
  let running = true;
  const look = async () => {
    const route = await getRoute(name).catch(() => undefined);
    const now = route && JSON.stringify(shape(route));
    if (now && seen.at(-1) !== now) seen.push(now);
  };
  const loop = (async () => {
    while (running) {
      await look();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await look(); // the route as it stands when stopped
  })();
  return {
    weights: () => seen.map((s) => JSON.parse(s).weights as string),
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

const canaryAt = (...args: Parameters<typeof rollouts.canaryAt>) => rollouts.canaryAt(...args);
const revisionOfPod = (p: V1Pod) => p.metadata?.labels?.[LABEL_REVISION];
const activeOf = (name: string, revision: string) =>
  rollouts.podsOf(name).filter((p) => isActive(p) && revisionOfPod(p) === revision).length;
const promote = (name: string, step: number) =>
  cp.as('editor')(`/controlplane/v1/namespaces/${ns}/nginxes/${name}/promote?step=${step}`, {
    method: 'POST',
  });
const service = (name: string) =>
  client.request<V1Service>({ path: `/api/v1/namespaces/${ns}/services/${name}` });

const HEADER_ROUTE = {
  name: 'beta',
  match: [
    { headerName: 'x-beta', headerValue: { exact: 'yes' } },
    { headerName: 'x-version', headerValue: { prefix: 'v2.' } },
  ],
};

function spec(name: string, steps: unknown[]): NginxSpec {
  return {
    replicas: 4,
    image: 'nginx:1.27',
    strategy: {
      type: 'Canary',
      canary: { steps, trafficRouting: { gatewayAPI: { httpRoute: name } } },
    },
  } as NginxSpec;
}

async function started(name: string, steps: unknown[]) {
  onTestFailed(() => console.log(`--- app:\n${cp.output().slice(-6000)}`));
  await createRoute(name);
  const first = spec(name, steps);
  await rollouts.create(name, first);
  const stable = revisionOfSpec(first);
  await rollouts.rolledOut(name, 4, stable);
  // No canary yet: the route already names the canary Service, at weight 0.
  await waitFor(
    `${name}: the canary backendRef at 0`,
    async () => shape(await getRoute(name)).weights === '100/0',
  );
  const update = revisionOfSpec({ ...first, image: 'nginx:1.28' });
  return { stable, update };
}

describe('strategy Canary with trafficRouting.gatewayAPI', () => {
  it('writes each step’s weight and header route into the HTTPRoute, pods first, and only its own fields', async () => {
    const name = uniqueName('shift');
    const { stable, update } = await started(name, [
      { setWeight: 20 },
      { pause: {} },
      { setHeaderRoute: HEADER_ROUTE },
      { setWeight: 50 },
      { pause: {} },
    ]);
    const shapes = routeShapes(name);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });

    // Step 1: one canary pod (20 % of 4, rounded up) beside all 4 stable ones, then 80/20.
    const first = await canaryAt(name, { revision: update, step: 1, phase: 'Paused', trafficWeight: 20 });
    expect(shape(await getRoute(name))).toEqual({ weights: '80/20', headerRules: [], otherRules: 1 });
    expect([activeOf(name, update), activeOf(name, stable)]).toEqual([1, 4]);
    expect(first.status?.canary?.httpRoute).toEqual({
      name,
      namespace: ns,
      accepted: 'Unknown',
      resolvedRefs: 'Unknown',
    });
    // The Services select one revision each.
    expect((await service(`${name}-stable`)).spec?.selector?.[LABEL_REVISION]).toBe(stable);
    expect((await service(`${name}-canary`)).spec?.selector?.[LABEL_REVISION]).toBe(update);

    // Promoted past the pause: the header route goes in, then 50/50 with 2 canary pods.
    expect((await promote(name, 1)).status).toBe(200);
    const second = await canaryAt(name, { step: 4, phase: 'Paused', trafficWeight: 50 });
    expect(second.status?.canary?.headerRoute).toBe('beta');
    expect(shape(await getRoute(name))).toEqual({
      weights: '50/50',
      headerRules: [
        {
          name: 'beta',
          headers: [
            { type: 'Exact', name: 'x-beta', value: 'yes' },
            { type: 'RegularExpression', name: 'x-version', value: '^v2\\..*' },
          ],
        },
      ],
      otherRules: 1,
    });
    expect([activeOf(name, update), activeOf(name, stable)]).toEqual([2, 4]);

    // Promoted past the last step: 100 to the canary once it has every pod, the stable pods go, then the stable
    // Service selects the new revision and takes the traffic back; the header route is gone.
    expect((await promote(name, 4)).status).toBe(200);
    await rollouts.rolledOut(name, 4, update);
    await waitFor(`${name}: the route back to the stable Service`, async () => {
      const now = shape(await getRoute(name));
      return now.weights === '100/0' && now.headerRules.length === 0;
    });
    await shapes.stop();
    expect((await service(`${name}-stable`)).spec?.selector?.[LABEL_REVISION]).toBe(update);
    expect(shapes.weights().filter((w, i, all) => all[i - 1] !== w)).toEqual([
      '100/0',
      '80/20',
      '50/50',
      '0/100',
      '100/0',
    ]);

    // Only our own fields: the other rule, the hostnames and the parentRefs are the platform team's still.
    const route = await getRoute(name);
    expect(route.spec.hostnames).toEqual([`${name}.example.com`]);
    expect(route.spec.parentRefs).toEqual([expect.objectContaining({ name: 'edge' })]);
    expect(shape(route).otherRules).toBe(1);
  }, 180_000);

  it('on abort, sets the weight to 0 before any canary pod is deleted', async () => {
    const name = uniqueName('abort');
    const { update } = await started(name, [{ setWeight: 50 }, { pause: {} }]);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    await canaryAt(name, { revision: update, step: 1, phase: 'Paused', trafficWeight: 50 });
    expect(activeOf(name, update)).toBe(2);

    // The resourceVersion of the first canary pod deletion and of the route write that set 0 (one etcd: ordered).
    let firstDeletion: number | undefined;
    const onPod = (pod: V1Pod) => {
      if (revisionOfPod(pod) === update && pod.metadata?.deletionTimestamp && firstDeletion === undefined)
        firstDeletion = Number(pod.metadata.resourceVersion);
    };
    rollouts.pods.addEventHandler({ update: onPod, delete: onPod });
    await client.request({
      method: 'PATCH',
      path: `${rollouts.collection}/${name}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { annotations: { [ANNOTATION_ABORT]: update } } },
    });
    await canaryAt(name, { phase: 'Aborted', trafficWeight: 0 });
    await waitFor(
      `${name}: canary pods gone`,
      async () => activeOf(name, update) === 0 && firstDeletion !== undefined,
    );
    // Nothing writes the route after the abort's write of 0: its resourceVersion is that write's.
    const route = await getRoute(name);
    expect(shape(route).weights).toBe('100/0');
    expect(Number(route.metadata.resourceVersion)).toBeLessThan(firstDeletion!);
  }, 120_000);

  it('pauses a canary whose HTTPRoute is deleted, with why, and resumes once it is back', async () => {
    const name = uniqueName('gone');
    const { stable, update } = await started(name, [
      { setWeight: 25 },
      { pause: { duration: '1s' } },
      { setWeight: 75 },
      { pause: {} },
    ]);
    await client.request({ method: 'DELETE', path: `${routes()}/${name}` });
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    const held = await canaryAt(name, { revision: update, phase: 'Paused', step: 0 });
    expect(held.status?.canary?.message).toBe(
      `Paused: HTTPRoute ${ns}/${name} not found (HTTPRouteNotFound).`,
    );
    expect(held.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'Unknown',
    });
    expect([activeOf(name, update), activeOf(name, stable)]).toEqual([0, 4]);

    await createRoute(name);
    await canaryAt(name, { step: 3, phase: 'Paused', trafficWeight: 75 });
    expect(shape(await getRoute(name)).weights).toBe('25/75');
  }, 120_000);

  it('keeps what another manager sets beside our weights, and restores our weights on the next step', async () => {
    const name = uniqueName('shared');
    const { update } = await started(name, [
      { setWeight: 10 },
      { pause: {} },
      { setWeight: 30 },
      { pause: {} },
    ]);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    await canaryAt(name, { revision: update, step: 1, phase: 'Paused', trafficWeight: 10 });

    // Someone sets their own weights on our rule and adds a rule of theirs, with a JSON merge patch of the rules.
    const route = await getRoute(name);
    const rules = route.spec.rules as Body[];
    rules[0]!.backendRefs = rules[0]!.backendRefs.map((r: Body) => ({ ...r, weight: 50 }));
    rules.push({
      matches: [{ path: { type: 'PathPrefix', value: '/static' } }],
      backendRefs: [{ name: 'cdn', port: 80 }],
    });
    await client.request({
      method: 'PATCH',
      path: `${routes()}/${name}`,
      query: { fieldManager: 'someone-else' },
      contentType: 'application/merge-patch+json',
      body: { spec: { rules } },
    });

    expect((await promote(name, 1)).status).toBe(200);
    await canaryAt(name, { step: 3, phase: 'Paused', trafficWeight: 30 });
    const after = await getRoute(name);
    expect(shape(after).weights).toBe('70/30');
    expect((after.spec.rules as Body[]).map((rule) => rule.backendRefs[0].name)).toEqual([
      `${name}-stable`,
      'api',
      'cdn',
    ]);
  }, 120_000);

  it('refuses a route in another namespace until a ReferenceGrant there allows it', async () => {
    const name = uniqueName('granted');
    const edge = await createNamespace(client, 'gateway-edge', cleanups);
    // The route lives in `edge` and refers to the Services of this namespace.
    await client.request({
      method: 'POST',
      path: httpRoutes(edge),
      body: {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'HTTPRoute',
        metadata: { name },
        spec: {
          parentRefs: [{ name: 'edge' }],
          rules: [{ backendRefs: [{ name: `${name}-stable`, namespace: ns, port: 80 }] }],
        },
      },
    });
    const first = { ...spec(name, [{ setWeight: 50 }, { pause: {} }]) };
    first.strategy!.canary!.trafficRouting = { gatewayAPI: { httpRoute: name, namespace: edge } };
    await rollouts.create(name, first);
    await rollouts.rolledOut(name, 4, revisionOfSpec(first));
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    const held = await canaryAt(name, { phase: 'Paused', step: 0 });
    expect(held.status?.canary?.message).toBe(
      `Paused: HTTPRoute ${edge}/${name} may not refer to Services of namespace ${ns}: no ReferenceGrant there allows it (ReferenceNotGranted).`,
    );

    await client.request({
      method: 'POST',
      path: `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/referencegrants`,
      body: {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'ReferenceGrant',
        metadata: { name: 'from-edge' },
        spec: {
          from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: edge }],
          to: [{ group: '', kind: 'Service' }],
        },
      },
    });
    await canaryAt(name, { step: 1, phase: 'Paused', trafficWeight: 50 });
    const route = await client.request<Body>({ path: `${httpRoutes(edge)}/${name}` });
    expect(route.spec.rules[0].backendRefs).toEqual([
      expect.objectContaining({ name: `${name}-stable`, namespace: ns, weight: 50 }),
      expect.objectContaining({ name: `${name}-canary`, namespace: ns, weight: 50 }),
    ]);
  }, 120_000);
});

describe('a traffic-routed canary across a change of leader', () => {
  it('keeps the same weight, with no write of the route, and goes on after a promote', async () => {
    const handoverNs = await createNamespace(client, 'gateway-handover', cleanups);
    const inNs = await rolloutsIn(client, handoverNs);
    cleanups.push(inNs.stop);
    const env = { ...HEADLESS, WATCH_NAMESPACE: handoverNs, LEASE_NAMESPACE: handoverNs };
    const apps = await Promise.all([startApp(env), startApp(env)]);
    for (const app of apps) cleanups.push(() => app.kill());
    const [leader, standby] = await leaderAndStandby(apps[0]!, apps[1]!);
    const name = uniqueName('handover');
    await createStableRoute(client, handoverNs, name);
    const first = spec(name, [{ setWeight: 25 }, { pause: {} }, { setWeight: 75 }, { pause: {} }]);
    await inNs.create(name, first);
    await inNs.rolledOut(name, 4, revisionOfSpec(first));
    await inNs.patchSpec(name, { image: 'nginx:1.28' });
    const paused = await inNs.canaryAt(name, { step: 1, phase: 'Paused', trafficWeight: 25 });
    const routePath = `${httpRoutes(handoverNs)}/${name}`;
    const before = await client.request<Body>({ path: routePath });

    await handOver(leader, standby);
    // The new leader read the route and found it as status.canary says: no write, no flap.
    const after = await client.request<Body>({ path: routePath });
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(shape(after).weights).toBe('75/25');
    expect((await inNs.get(name)).status?.canary).toEqual(paused.status?.canary);

    await client.request({
      method: 'PATCH',
      path: `${inNs.collection}/${name}`,
      contentType: 'application/merge-patch+json',
      body: {
        metadata: { annotations: { 'mycompany.com/promote': `${paused.status!.canary!.revision}/1` } },
      },
    });
    await inNs.canaryAt(name, { step: 3, phase: 'Paused', trafficWeight: 75 });
    expect(shape(await client.request<Body>({ path: routePath })).weights).toBe('25/75');
  }, 240_000);
});
