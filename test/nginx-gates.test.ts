// Gates before promotion (issue 46): a canary step `gate: {webhook}` POSTs the rollout's context to a real HTTP
// server this test runs (2xx passes; anything else, or no answer in time, fails the gate with why), `gate: {manual}`
// waits for a promote and says so; a blue-green rollout's prePromotionGate does the same before its switch. The
// controller and the REST API run in one process watching only this file's namespace; each verdict is read back
// from status and from the reconcile audit.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { NginxSpec, ReconcileItem } from '../libs/nginx-api/src/index.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { createNamespace } from './support/operations.js';
import { revisionOfSpec, rolloutsIn } from './support/rollouts.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let ns: string;
let cp: ControlPlane;
let rollouts: Awaited<ReturnType<typeof rolloutsIn>>;

/** The gates' webhook server: each path answers as the test sets it; every call is kept. */
const answers = new Map<string, (res: ServerResponse) => void>();
const calls: { path: string; body: Record<string, unknown>; headers: IncomingMessage['headers'] }[] = [];
let hooks: Server;
let hookBase: string;

beforeAll(async () => {
  hooks = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      calls.push({ path: req.url!, body: JSON.parse(body || '{}'), headers: req.headers });
      answers.get(req.url!)?.(res);
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  hookBase = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
  answers.set('/pass', (res) => res.writeHead(200).end('ok'));
  answers.set('/fail', (res) => res.writeHead(500).end('smoke test failed: 3 of 20 requests 5xx'));
  answers.set('/hang', () => {}); // never answers
  ns = await createNamespace(client, 'gates', cleanups);
  cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  rollouts = await rolloutsIn(client, ns);
}, 90_000);

afterAll(async () => {
  await rollouts?.stop();
  await cp?.stop();
  hooks?.closeAllConnections();
  await new Promise((resolve) => hooks?.close(resolve));
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

const request = (name: string, verb: 'promote' | 'abort', query = '') =>
  cp.as('editor')(`/controlplane/v1/namespaces/${ns}/nginxes/${name}/${verb}${query}`, { method: 'POST' });

async function reconcileActions(name: string) {
  const answer = await cp.as('viewer')(
    `/controlplane/v1/audit/reconciles?namespace=${ns}&name=${name}&limit=500`,
  );
  const { items } = (await answer.json()) as { items: ReconcileItem[] };
  return items.flatMap((item) => item.actions);
}

async function started(name: string, strategy: Record<string, unknown>, more: Partial<NginxSpec> = {}) {
  onTestFailed(() => console.log(`--- app:\n${cp.output().slice(-6000)}`));
  const first = { replicas: 2, image: 'nginx:1.27', strategy, ...more } as NginxSpec;
  await rollouts.create(name, first);
  await rollouts.rolledOut(name, 2, revisionOfSpec(first));
  await rollouts.patchSpec(name, { image: 'nginx:1.28' });
  return revisionOfSpec({ ...first, image: 'nginx:1.28' });
}

describe('gates before promotion', () => {
  it('passes a canary gate on a 2xx, POSTing the rollout’s context with the headers given, then waits at a manual gate', async () => {
    const name = uniqueName('gate-pass');
    const revision = await started(name, {
      type: 'Canary',
      canary: {
        steps: [
          { setWeight: 50 },
          { gate: { webhook: { url: `${hookBase}/pass`, headers: { authorization: 'Bearer smoke' } } } },
          { gate: { manual: {} } },
        ],
      },
    });
    const waiting = await rollouts.canaryAt(name, { revision, step: 2, phase: 'Paused' });
    expect(waiting.status?.canary?.message).toBe('Waiting at step 3 of 3: a manual gate, until a promote.');
    expect(waiting.status?.canary?.gateRuns).toEqual([
      { name: `${revision}-1-gate`, step: 1, phase: 'Passed', at: expect.any(String), code: 200 },
    ]);
    const call = calls.find((c) => c.path === '/pass' && (c.body.nginx as { name: string }).name === name)!;
    expect(call.headers.authorization).toBe('Bearer smoke');
    expect(call.body).toMatchObject({
      gate: `${revision}-1-gate`,
      nginx: { namespace: ns, name },
      strategy: 'Canary',
      revision,
      step: 1,
      weight: 50,
    });
    expect(call.body.stableRevision).toEqual(expect.any(String));
    await waitFor(`${name}: the gate's verdict in the reconcile audit`, async () =>
      (await reconcileActions(name)).some(
        (a) => a.kind === 'gate' && a.object === `${revision}-1-gate` && a.reason === 'passed (HTTP 200)',
      ),
    );

    expect((await request(name, 'promote', '?step=2')).status).toBe(200);
    await rollouts.canaryAt(name, { phase: 'Promoted' });
    await rollouts.rolledOut(name, 2, revision);
  }, 120_000);

  it('fails a gate whose webhook hangs once its time is out, and one that answers 500 with its text', async () => {
    const name = uniqueName('gate-hang');
    const revision = await started(name, {
      type: 'Canary',
      canary: {
        steps: [{ setWeight: 50 }, { gate: { webhook: { url: `${hookBase}/hang`, timeoutSeconds: 2 } } }],
      },
    });
    const paused = await rollouts.canaryAt(name, { revision, step: 1, phase: 'Paused' });
    const run = `${revision}-1-gate`;
    expect(paused.status?.canary?.gateRuns).toEqual([
      { name: run, step: 1, phase: 'Failed', at: expect.any(String), message: 'no answer within 2 s' },
    ]);
    expect(paused.status?.canary?.message).toBe(
      `Paused at step 2 of 2: gate ${run} failed (no answer within 2 s); promote or abort.`,
    );
    // The app stayed up and answers; the verdict is in the audit.
    expect((await cp.as('viewer')(`/apis/mycompany.com/v1/namespaces/${ns}/nginxes/${name}`)).status).toBe(
      200,
    );
    await waitFor(`${name}: the gate's verdict in the reconcile audit`, async () =>
      (await reconcileActions(name)).some(
        (a) => a.kind === 'gate' && a.object === run && a.reason === 'failed: no answer within 2 s',
      ),
    );
    // Called once: a failed gate is not called again by itself.
    expect(calls.filter((c) => c.path === '/hang' && c.body.gate === run)).toHaveLength(1);

    // With rollbackOnFailure a gate answering 500 aborts, naming the gate and the answer.
    const other = uniqueName('gate-500');
    const second = await started(
      other,
      {
        type: 'Canary',
        canary: { steps: [{ setWeight: 50 }, { gate: { webhook: { url: `${hookBase}/fail` } } }] },
      },
      { rollbackOnFailure: true },
    );
    const aborted = await rollouts.canaryAt(other, { revision: second, phase: 'Aborted' });
    expect(aborted.status?.canary?.abortedBy).toBe(`${second}-1-gate`);
    expect(aborted.status?.canary?.message).toBe(
      `Aborted: gate ${second}-1-gate failed: HTTP 500: smoke test failed: 3 of 20 requests 5xx.`,
    );
  }, 120_000);

  it('gates a blue-green promotion: a webhook that fails aborts the preview, one that passes lets it switch', async () => {
    const failing = uniqueName('bg-gate');
    const revision = await started(failing, {
      type: 'BlueGreen',
      blueGreen: { prePromotionGate: { webhook: { url: `${hookBase}/fail` } } },
    });
    const aborted = await rollouts.blueGreenAt(failing, { revision, phase: 'Aborted' });
    expect(aborted.status?.blueGreen).toMatchObject({
      abortedBy: `${revision}-pre-gate`,
      activeRevision: aborted.status?.currentRevision,
    });
    const call = calls.find((c) => c.body.gate === `${revision}-pre-gate`)!;
    expect(call.body).toMatchObject({ strategy: 'BlueGreen', revision, nginx: { name: failing } });

    const passing = uniqueName('bg-gate');
    const next = await started(passing, {
      type: 'BlueGreen',
      blueGreen: { prePromotionGate: { webhook: { url: `${hookBase}/pass` } }, scaleDownDelaySeconds: 0 },
    });
    await rollouts.blueGreenAt(passing, { revision: next, activeRevision: next });
    await rollouts.rolledOut(passing, 2, next);
  }, 120_000);
});
