// Flagger's canary through Gateway API (issue 46's peer): Flagger v1.36.1, built from the Go module proxy
// (tools/flagger/build.sh), out of cluster against the local kube-apiserver with -mesh-provider=gatewayapi:v1,
// watching only this file's namespace. No Gateway implementation and no Prometheus: the weights are what Flagger
// writes into the HTTPRoute, read back from kube-apiserver, and an analysis without metrics queries nothing.
import { afterAll, beforeAll, expect, it, onTestFailed } from 'vitest';
import {
  applyFlaggerCrds,
  buildFlagger,
  flaggerRouteWeights,
  runFlaggerCanary,
  startFlagger,
  type FlaggerProcess,
} from './support/flagger.js';
import { createNamespace } from './support/operations.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { runOurGatewayCanary } from './support/gateway-canary.js';
import { runtimeClient } from './support/runtime.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let ns: string;
let flagger: FlaggerProcess;
let cp: ControlPlane;

beforeAll(async () => {
  // A symlink once built; the first build compiles Flagger (minutes).
  await buildFlagger();
  await applyFlaggerCrds();
  ns = await createNamespace(client, 'flagger-gateway', cleanups);
  flagger = await startFlagger({ namespace: ns });
  // Our controller in the same namespace, for the side-by-side run (it touches only Nginxes and what they own).
  cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
}, 20 * 60_000);

afterAll(async () => {
  await flagger?.stop();
  await cp?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Gateway API objects, read loosely
type Body = Record<string, any>;

it('shifts the HTTPRoute it generates 100/0 → 80/20 → 50/50, then back to 100/0 once promoted', async () => {
  onTestFailed(() => console.log(`flagger's log (${flagger.logPath}):\n${flagger.log().slice(-6000)}`));
  // 10s: Flagger's shortest analysis interval (it raises a shorter one, which its CRD accepts, to 10 s). Ours runs
  // the equivalent steps at the same time, on a route of its own in the same namespace.
  const [run, ours] = await Promise.all([
    runFlaggerCanary(client, ns, { name: 'podinfo', stepWeights: [20, 50], interval: '10s' }),
    runOurGatewayCanary(client, ns, {
      name: 'ours',
      steps: [
        { setWeight: 20 },
        { pause: { duration: '10s' } },
        { setWeight: 50 },
        { pause: { duration: '10s' } },
      ],
    }),
  ]);
  const shown = (weights: typeof run.weights) =>
    weights.map((w) => `${w.value.primary}/${w.value.canary} @${Math.round(w.atMs)}ms`);
  console.log(
    'ours, side by side:',
    JSON.stringify({ weights: shown(ours.weights), doneMs: Math.round(ours.doneMs) }),
  );
  // The same weight at each step: 100/0, 80/20, 50/50. Then Flagger copies the canary's template to its primary
  // and routes everything back to it in one write; ours sends the canary 100 once it has every pod, moves the
  // stable Service to the new revision, then routes back to it (as Argo Rollouts does).
  const steps = (weights: typeof run.weights) => weights.map((w) => `${w.value.primary}/${w.value.canary}`);
  expect(steps(ours.weights).slice(0, 3)).toEqual(steps(run.weights).slice(0, 3));
  expect(steps(ours.weights)).toEqual(['100/0', '80/20', '50/50', '0/100', '100/0']);
  console.log(
    'flagger canary:',
    JSON.stringify({
      weights: run.weights.map((w) => `${w.value.primary}/${w.value.canary} @${Math.round(w.atMs)}ms`),
      phases: run.phases.map((p) => `${p.value} @${Math.round(p.atMs)}ms`),
      succeededMs: Math.round(run.succeededMs),
    }),
  );

  // One thing per analysis tick (10 s): the first tick after the image change sees the new revision and scales
  // podinfo up (Progressing, still 100/0); the next finds it ready and writes 80/20, the next 50/50 (the last of
  // stepWeights is its maxWeight); the next copies podinfo's template to podinfo-primary (Promoting); the next,
  // the primary rolled out, routes everything back to it in one write (no stepWeightPromotion) and goes
  // Finalising; the last scales podinfo to 0 and reports Succeeded. Six ticks: about 60 s from the trigger.
  expect(run.weights.map((w) => `${w.value.primary}/${w.value.canary}`)).toEqual([
    '100/0',
    '80/20',
    '50/50',
    '100/0',
  ]);
  expect(run.phases.map((p) => p.value)).toEqual([
    'Initialized',
    'Progressing',
    'Promoting',
    'Finalising',
    'Succeeded',
  ]);

  // The route Flagger generated (named after the Deployment, owned by the Canary): one rule, the path prefix /, the
  // primary and canary Services side by side on the Canary's port, attached to the Gateway named in gatewayRefs.
  const route = await client.request<Body>({
    path: `/apis/gateway.networking.k8s.io/v1/namespaces/${ns}/httproutes/podinfo`,
  });
  expect(route.metadata.ownerReferences).toEqual([
    expect.objectContaining({ kind: 'Canary', name: 'podinfo', controller: true }),
  ]);
  expect(route.spec.parentRefs).toEqual([expect.objectContaining({ name: 'edge' })]);
  expect(route.spec.rules).toHaveLength(1);
  expect(route.spec.rules[0].matches).toEqual([{ path: { type: 'PathPrefix', value: '/' } }]);
  expect(route.spec.rules[0].backendRefs.map((ref: Body) => [ref.name, ref.port])).toEqual([
    ['podinfo-primary', 80],
    ['podinfo-canary', 80],
  ]);
  expect(flaggerRouteWeights(route, 'podinfo')).toEqual({ primary: 100, canary: 0 });

  // Promoted: the primary runs the new image, the target Deployment is scaled to 0 again.
  const deployments = `/apis/apps/v1/namespaces/${ns}/deployments`;
  const primary = await client.request<Body>({ path: `${deployments}/podinfo-primary` });
  expect(primary.spec.template.spec.containers[0].image).toBe('nginx:1.27-alpine');
  const target = await client.request<Body>({ path: `${deployments}/podinfo` });
  expect(target.spec.replicas).toBe(0);
}, 240_000);
