// Strategy BlueGreen (issue 46), on the local cluster, the controller and the REST API in one process watching only
// this file's namespace. The new revision is previewed beside the active one (the preview Service selects it, the
// active Service does not); a promote switches the active Service's selector in one write, and the old pods stay for
// scaleDownDelaySeconds; an abort, even after the switch, switches back in one write before any pod goes.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { V1Pod, V1Service } from '@kubernetes/client-node';
import { LABEL_REVISION, type NginxSpec } from '../libs/nginx-api/src/index.js';
import { isActive } from '../apps/api/src/controller/pod-plan.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { createNamespace } from './support/operations.js';
import { revisionOfSpec, rolloutsIn } from './support/rollouts.js';
import { runtimeClient } from './support/runtime.js';
import { sleep, uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let ns: string;
let cp: ControlPlane;
let rollouts: Awaited<ReturnType<typeof rolloutsIn>>;

beforeAll(async () => {
  ns = await createNamespace(client, 'blue-green', cleanups);
  cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  rollouts = await rolloutsIn(client, ns);
}, 90_000);

afterAll(async () => {
  await rollouts?.stop();
  await cp?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

const revisionOfPod = (p: V1Pod) => p.metadata?.labels?.[LABEL_REVISION];
const activeOf = (name: string, revision: string) =>
  rollouts.podsOf(name).filter((p) => isActive(p) && revisionOfPod(p) === revision).length;
const service = (name: string) =>
  client.request<V1Service>({ path: `/api/v1/namespaces/${ns}/services/${name}` });
const selected = async (name: string) =>
  (await service(name).catch(() => undefined))?.spec?.selector?.[LABEL_REVISION];
const request = (name: string, verb: 'promote' | 'abort') =>
  cp.as('editor')(`/controlplane/v1/namespaces/${ns}/nginxes/${name}/${verb}`, { method: 'POST' });

/** Every distinct revision the active Service selected while polling, in order, with the resourceVersions seen. */
function activeSelections(name: string) {
  const seen: string[] = [];
  let running = true;
  const look = async () => {
    const now = await selected(`${name}-active`);
    if (now && seen.at(-1) !== now) seen.push(now);
  };
  const loop = (async () => {
    while (running) {
      await look();
      await sleep(50);
    }
    await look();
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return seen;
    },
  };
}

function spec(blueGreen: Record<string, unknown>): NginxSpec {
  return {
    replicas: 3,
    image: 'nginx:1.27',
    strategy: { type: 'BlueGreen', blueGreen },
  } as NginxSpec;
}

async function started(name: string, blueGreen: Record<string, unknown>) {
  onTestFailed(() => console.log(`--- app:\n${cp.output().slice(-6000)}`));
  const first = spec(blueGreen);
  await rollouts.create(name, first);
  const blue = revisionOfSpec(first);
  await rollouts.rolledOut(name, 3, blue);
  // The first revision is active and previewed at once: both Services select it.
  await waitFor(`${name}: both Services on ${blue}`, async () => {
    return (await selected(`${name}-active`)) === blue && (await selected(`${name}-preview`)) === blue;
  });
  const green = revisionOfSpec({ ...first, image: 'nginx:1.28' });
  return { blue, green };
}

describe('strategy BlueGreen', () => {
  it('previews the new revision beside the active one, switches the active Service in one write on promote, and keeps the old pods for the delay', async () => {
    const name = uniqueName('promote');
    const { blue, green } = await started(name, {
      autoPromotionEnabled: false,
      previewReplicaCount: 1,
      scaleDownDelaySeconds: 3,
    });
    const selections = activeSelections(name);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });

    // The preview: one pod of green beside all of blue, which stays active; then it waits for a promote.
    const paused = await rollouts.blueGreenAt(name, { revision: green, phase: 'Paused' });
    expect(paused.status?.blueGreen).toMatchObject({
      activeRevision: blue,
      previewReadyAt: expect.any(String),
    });
    expect([activeOf(name, green), activeOf(name, blue)]).toEqual([1, 3]);
    expect(await selected(`${name}-active`)).toBe(blue);
    expect(await selected(`${name}-preview`)).toBe(green);
    const progressing = paused.status?.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'Unknown', reason: 'BlueGreenPaused' });
    expect(paused.status?.message).toContain(`previewing ${green}, ${blue} active`);

    // Promote: green gets every pod, then the active Service switches; blue's pods stay for the delay.
    expect((await request(name, 'promote')).status).toBe(200);
    const switched = await rollouts.blueGreenAt(name, { activeRevision: green });
    const promotedAt = Date.parse(switched.status!.blueGreen!.promotedAt!);
    expect(activeOf(name, green)).toBe(3);
    expect(activeOf(name, blue)).toBe(3);
    await rollouts.rolledOut(name, 3, green);
    // The old pods went no sooner than scaleDownDelaySeconds after the switch.
    expect(Date.now() - promotedAt).toBeGreaterThanOrEqual(3_000);
    const done = await rollouts.blueGreenAt(name, { phase: 'Promoted' });
    expect(done.status?.blueGreen?.activeRevision).toBe(green);
    expect(await selections.stop()).toEqual([blue, green]);
    expect(await selected(`${name}-preview`)).toBe(green);

    // Nothing is in progress now: a promote is refused.
    const again = await request(name, 'promote');
    expect(again.status).toBe(409);
  }, 180_000);

  it('switches back in one write on an abort after the switch, before any pod goes, and keeps every old pod', async () => {
    const name = uniqueName('back');
    const { blue, green } = await started(name, { scaleDownDelaySeconds: 600 });
    const selections = activeSelections(name);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });

    // Promoted by itself once the preview (3 pods, the default) is ready.
    await rollouts.blueGreenAt(name, { revision: green, activeRevision: green, phase: 'Promoting' });
    expect([activeOf(name, green), activeOf(name, blue)]).toEqual([3, 3]);
    const blueNames = rollouts
      .podsOf(name)
      .filter((p) => isActive(p) && revisionOfPod(p) === blue)
      .map((p) => p.metadata!.name!)
      .sort();

    // Abort: the active Service is back on blue by the time any green pod goes.
    let switchedBackFirst = true;
    const remove = rollouts.pods.addEventHandler({
      update: (before, pod) => {
        if (
          revisionOfPod(pod) === green &&
          !before.metadata?.deletionTimestamp &&
          pod.metadata?.deletionTimestamp
        )
          void selected(`${name}-active`).then((now) => {
            if (now !== blue) switchedBackFirst = false;
          });
      },
    });
    expect((await request(name, 'abort')).status).toBe(200);
    const aborted = await rollouts.blueGreenAt(name, { phase: 'Aborted', activeRevision: blue });
    expect(aborted.status?.blueGreen?.message).toBe('Aborted by request.');
    await waitFor(`${name}: green's pods gone`, async () => activeOf(name, green) === 0);
    remove();
    expect(switchedBackFirst).toBe(true);
    expect(await selections.stop()).toEqual([blue, green, blue]);
    // The preview Service stays on green, which has no pods left (as Argo Rollouts leaves it).
    expect(await selected(`${name}-preview`)).toBe(green);
    // Blue's pods are the same pods: none was deleted or made again.
    const blueNow = rollouts
      .podsOf(name)
      .filter((p) => isActive(p) && revisionOfPod(p) === blue)
      .map((p) => p.metadata!.name!)
      .sort();
    expect(blueNow).toEqual(blueNames);
    const nginx = await rollouts.get(name);
    expect(nginx.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'BlueGreenAborted',
    });
  }, 180_000);

  it('aborts a preview without ever switching, and starts again on a new revision', async () => {
    const name = uniqueName('preview');
    const { blue, green } = await started(name, { autoPromotionEnabled: false });
    const selections = activeSelections(name);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    await rollouts.blueGreenAt(name, { revision: green, phase: 'Paused' });
    expect((await request(name, 'abort')).status).toBe(200);
    await rollouts.blueGreenAt(name, { phase: 'Aborted' });
    await waitFor(`${name}: green's pods gone`, async () => activeOf(name, green) === 0);
    expect(activeOf(name, blue)).toBe(3);
    expect(await selected(`${name}-preview`)).toBe(green);
    // A second abort finds nothing in progress.
    expect((await request(name, 'abort')).status).toBe(409);

    // A new revision is a new preview.
    await rollouts.patchSpec(name, { image: 'nginx:1.29' });
    const third = revisionOfSpec({ ...spec({ autoPromotionEnabled: false }), image: 'nginx:1.29' });
    await rollouts.blueGreenAt(name, { revision: third, phase: 'Paused', activeRevision: blue });
    expect(await selected(`${name}-preview`)).toBe(third);
    expect(await selections.stop()).toEqual([blue]);
  }, 180_000);

  it('holds while spec.paused: no preview made until resumed', async () => {
    const name = uniqueName('paused');
    const { blue, green } = await started(name, { autoPromotionEnabled: false });
    await rollouts.patchSpec(name, { paused: true, image: 'nginx:1.28' });
    await waitFor(`${name}: Progressing says Paused`, async () => {
      const nginx = await rollouts.get(name);
      return nginx.status?.conditions?.some((c) => c.type === 'Progressing' && c.reason === 'Paused');
    });
    expect([activeOf(name, green), activeOf(name, blue)]).toEqual([0, 3]);
    await rollouts.patchSpec(name, { paused: false });
    await rollouts.blueGreenAt(name, { revision: green, phase: 'Paused', activeRevision: blue });
    expect(activeOf(name, green)).toBe(3);
  }, 120_000);
});
