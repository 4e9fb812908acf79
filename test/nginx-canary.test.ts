// Canary rollouts on the local cluster, with the controller and the REST API in one process watching only this
// file's namespace: a good canary walks its steps (per-step pod counts seen by a watch of the pods) and is
// promoted through POST …/promote; an abort mid-step brings every pod back to the stable revision without the
// stable pods ever going below what the step held; rollbackOnFailure with an exceeded progress deadline sends the
// pods back (RolledBack); an analysis step without an analysis provider pauses, and a promote moves past it;
// promote/abort are refused 409 without a canary in progress and 403 for a viewer; a change of leader mid-canary
// resumes at the same step.
import type { V1Pod } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { ANNOTATION_ABORT, LABEL_REVISION, type Nginx, type NginxSpec } from '../libs/nginx-api/src/index.js';
import { isActive, isReady } from '../apps/api/src/controller/pod-plan.js';
import { startControlPlane, type ControlPlane, type TestRole } from './support/control-plane.js';
import { HEADLESS, handOver, leaderAndStandby, startApp } from './support/app-process.js';
import { createNamespace, createPodQuota } from './support/operations.js';
import { revisionOfSpec, rolloutsIn } from './support/rollouts.js';
import { runtimeClient } from './support/runtime.js';
import { uniqueName, waitFor } from './support/wait.js';

const client = runtimeClient();
const cleanups: (() => Promise<unknown>)[] = [];
let ns: string;
let cp: ControlPlane;
let rollouts: Awaited<ReturnType<typeof rolloutsIn>>;

beforeAll(async () => {
  ns = await createNamespace(client, 'canary', cleanups);
  cp = await startControlPlane({ CONTROLLER: 'true', WATCH_NAMESPACE: ns, LEASE_NAMESPACE: ns });
  rollouts = await rolloutsIn(client, ns);
}, 90_000);

afterAll(async () => {
  await rollouts?.stop();
  await cp?.stop();
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  client.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects and Status, read loosely
type Body = Record<string, any>;
const request = (role: TestRole, name: string, what: 'promote' | 'abort', query = '') =>
  cp.as(role)(`/controlplane/v1/namespaces/${ns}/nginxes/${name}/${what}${query}`, { method: 'POST' });

function create(name: string, spec: NginxSpec): Promise<Nginx> {
  onTestFailed(() => console.log(`--- app:\n${cp.output().slice(-6000)}`));
  return rollouts.create(name, spec);
}

const revisionOf = (p: V1Pod) => p.metadata?.labels?.[LABEL_REVISION];
/** Active pods of `revision`, and how many of them are ready. */
const counts = (name: string, revision: string) => {
  const mine = rollouts.podsOf(name).filter((p) => isActive(p) && revisionOf(p) === revision);
  return { active: mine.length, ready: mine.filter(isReady).length };
};

const canaryAt = (...args: Parameters<typeof rollouts.canaryAt>) => rollouts.canaryAt(...args);

/** Keeps, over a watch of the pods, the fewest active pods of `revision` seen after the watch began. */
function minimumOf(name: string, revision: string) {
  const seen = { min: Number.POSITIVE_INFINITY };
  const check = () => (seen.min = Math.min(seen.min, counts(name, revision).active));
  check();
  const stop = rollouts.pods.addEventHandler({ add: check, update: check, delete: check });
  return { seen, stop };
}

/**
 * Records, over a watch of the pods, every settled split the pods went through: `canary/stable` each time every
 * active pod is ready and of one of the two revisions (the counts a step holds show up at least once).
 */
function splitsOf(name: string, stable: string, update: string) {
  const seen: string[] = [];
  const check = () => {
    const active = rollouts.podsOf(name).filter(isActive);
    if (!active.every((p) => isReady(p) && [stable, update].includes(revisionOf(p)!))) return;
    const split = `${counts(name, update).active}/${counts(name, stable).active}`;
    if (seen.at(-1) !== split) seen.push(split);
  };
  const stop = rollouts.pods.addEventHandler({ add: check, update: check, delete: check });
  return { seen, stop };
}

const STEPS = [{ setWeight: 20 }, { pause: { duration: '2s' } }, { setWeight: 50 }, { pause: {} }];

describe('strategy Canary', () => {
  it('walks every step with the pods each step asks for, and completes after a promote', async () => {
    const name = uniqueName('good');
    const spec: NginxSpec = {
      replicas: 10,
      image: 'nginx:1.27',
      strategy: { type: 'Canary', canary: { steps: STEPS } },
    };
    await create(name, spec);
    const stable = revisionOfSpec(spec);
    await rollouts.rolledOut(name, 10, stable);

    const next = { ...spec, image: 'nginx:1.28' };
    const update = revisionOfSpec(next);
    const watch = rollouts.boundsWatch(name);
    const splits = splitsOf(name, stable, update);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    // Step 1 (index 0) ends with 2 canary pods and 8 stable ones, all ready; its pause follows.
    const paused = await canaryAt(name, { revision: update, step: 3, phase: 'Paused', weight: 50 });
    expect(paused.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'Unknown',
      reason: 'CanaryPaused',
    });
    expect(paused.status?.conditions?.find((c) => c.type === 'Progressing')?.message).toContain(
      `canary step 4/4: 50% on ${update}`,
    );
    expect(counts(name, update)).toEqual({ active: 5, ready: 5 });
    expect(counts(name, stable)).toEqual({ active: 5, ready: 5 });
    expect(paused.status?.currentRevision).toBe(stable);

    // A step other than the current one is refused; the current one is promoted.
    expect((await request('editor', name, 'promote', '?step=1')).status).toBe(409);
    const promoted = await request('editor', name, 'promote', '?step=3');
    expect(promoted.status).toBe(200);
    expect(((await promoted.json()) as Body).metadata.annotations['mycompany.com/promote']).toBe(
      `${update}/3`,
    );
    const done = await rollouts.rolledOut(name, 10, update);
    watch.stop();
    splits.stop();
    // 20% (2 of 10) held through its pause, then 50%, then all of them, in that order.
    const at = (split: string) => splits.seen.indexOf(split);
    expect(at('2/8')).toBeGreaterThanOrEqual(0);
    expect(at('5/5')).toBeGreaterThan(at('2/8'));
    expect(at('10/0')).toBeGreaterThan(at('5/5'));
    expect(done.status?.canary).toMatchObject({ revision: update, phase: 'Promoted', weight: 100, step: 4 });
    // maxSurge 25% of 10 (3), maxUnavailable 0.
    expect(watch.seen.maxActive).toBeLessThanOrEqual(13);
    expect(watch.seen.minAvailableAfterDelete).toBeGreaterThanOrEqual(10);
    // The promote is in the change audit, with its verb (the refused one too).
    let lastList: Body | undefined;
    onTestFailed(() => console.log(`--- change audit: ${JSON.stringify(lastList)}`));
    const audited = await waitFor('the promotes in the change audit', async () => {
      const list = (await (
        await cp.as('viewer')(`/controlplane/v1/audit/changes?namespace=${ns}&name=${name}&verb=promote`)
      ).json()) as Body;
      lastList = list;
      return list.items?.length >= 2 && (list.items as Body[]);
    });
    expect(audited.map((item) => item.code).sort()).toEqual([200, 409]);
    expect(audited.find((item) => item.code === 200)).toMatchObject({ verb: 'promote', role: 'editor' });
    // Once promoted, promote and abort have no canary to act on.
    expect((await request('editor', name, 'abort')).status).toBe(409);
    expect((await request('editor', name, 'promote', '?full=true')).status).toBe(409);
  }, 240_000);

  it('an abort mid-step brings every pod back to stable, stable never below what the step held', async () => {
    const name = uniqueName('abort');
    const spec: NginxSpec = {
      replicas: 10,
      image: 'nginx:1.27',
      strategy: { type: 'Canary', canary: { steps: [{ setWeight: 40 }, { pause: {} }] } },
    };
    await create(name, spec);
    const stable = revisionOfSpec(spec);
    await rollouts.rolledOut(name, 10, stable);
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    const update = revisionOfSpec({ ...spec, image: 'nginx:1.28' });
    await canaryAt(name, { revision: update, step: 1, phase: 'Paused' });
    expect(counts(name, stable).active).toBe(6);

    const watch = minimumOf(name, stable);
    expect((await request('viewer', name, 'abort')).status).toBe(403);
    const aborted = await request('editor', name, 'abort');
    expect(aborted.status).toBe(200);
    expect(((await aborted.json()) as Body).metadata.annotations[ANNOTATION_ABORT]).toBe(update);
    const back = await waitFor(
      'every pod back on the stable revision, the canary Aborted',
      async () => {
        const nginx = await rollouts.get(name);
        const all = rollouts.podsOf(name);
        const home =
          all.length === 10 && all.every((p) => isActive(p) && isReady(p) && revisionOf(p) === stable);
        return home && nginx.status?.canary?.phase === 'Aborted' && nginx;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    watch.stop();
    expect(watch.seen.min).toBeGreaterThanOrEqual(6);
    expect(back.spec.image).toBe('nginx:1.28'); // the spec is left as written
    expect(back.status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'CanaryAborted',
    });
    expect(back.status?.currentRevision).toBe(stable);
    // Aborted holds: a second abort or a promote finds no canary in progress.
    expect((await request('editor', name, 'promote')).status).toBe(409);
  }, 240_000);

  it('an analysis step without an analysis provider pauses, naming why, and a promote annotation moves past it', async () => {
    const name = uniqueName('analysis');
    const spec: NginxSpec = {
      replicas: 2,
      image: 'nginx:1.27',
      analysis: [
        {
          name: 'errors',
          prometheus: { address: 'http://127.0.0.1:1', query: 'vector(0)' },
          successCondition: 'result < 1',
        },
      ],
      strategy: {
        type: 'Canary',
        canary: { steps: [{ setWeight: 50 }, { analysis: { templateName: 'errors' } }] },
      },
    };
    await create(name, spec);
    await rollouts.rolledOut(name, 2, revisionOfSpec(spec));
    await rollouts.patchSpec(name, { image: 'nginx:1.28' });
    const update = revisionOfSpec({ ...spec, image: 'nginx:1.28' });
    const paused = await canaryAt(name, { revision: update, step: 1, phase: 'Paused' });
    const run = paused.status?.canary?.analysisRuns?.[0];
    expect(run).toMatchObject({ name: `${update}-1-errors`, step: 1 });
    expect(['Inconclusive', 'Error']).toContain(run?.phase);
    expect(paused.status?.canary?.message).toContain(`${update}-1-errors`);
    // What `kubectl annotate nginx <name> mycompany.com/promote=<revision>/1` sends: the same request, by hand.
    await client.request({
      method: 'PATCH',
      path: `${rollouts.collection}/${name}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { annotations: { 'mycompany.com/promote': `${update}/1` } } },
    });
    const done = await rollouts.rolledOut(name, 2, update);
    expect(done.status?.canary?.phase).toBe('Promoted');
  }, 180_000);

  it('is refused 409 on an Nginx with no canary, 404 on none at all, 400 for a bad query, 403 for a viewer, 405 for another method, and is in the OpenAPI document', async () => {
    const name = uniqueName('rolling');
    await create(name, { replicas: 1, image: 'nginx:1.27' });
    const refused = await request('editor', name, 'promote');
    expect(refused.status).toBe(409);
    expect((await refused.json()) as Body).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    expect((await request('editor', name, 'abort')).status).toBe(409);
    expect((await request('editor', 'no-such-nginx', 'abort')).status).toBe(404);
    expect((await request('editor', name, 'promote', '?full=maybe')).status).toBe(400);
    expect((await request('editor', name, 'promote', '?step=one')).status).toBe(400);
    expect((await request('editor', name, 'promote', '?step=-1')).status).toBe(400);
    expect((await request('viewer', name, 'promote')).status).toBe(403);
    expect((await request('editor', 'no-such-nginx', 'promote')).status).toBe(404);
    // Another method on the request paths: 405, as the API server answers a verb a path does not serve.
    for (const method of ['GET', 'PUT', 'DELETE'])
      for (const what of ['promote', 'abort']) {
        const path = `/controlplane/v1/namespaces/${ns}/nginxes/${name}/${what}`;
        const answer = await cp.as('editor')(path, { method });
        expect(answer.status, `${method} ${what}`).toBe(405);
        expect((await answer.json()) as Body).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed' });
      }
    const document = (await (await fetch(`${cp.url}/openapi.json`)).json()) as Body;
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/promote',
        '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/abort',
      ]),
    );
  }, 60_000);
});

describe('spec.rollbackOnFailure', () => {
  it('an exceeded progress deadline sends the pods back to the stable revision: Progressing False, RolledBack', async () => {
    const quotaNs = await createNamespace(client, 'canary-quota', cleanups);
    const quotaCp = await startControlPlane({
      CONTROLLER: 'true',
      WATCH_NAMESPACE: quotaNs,
      LEASE_NAMESPACE: quotaNs,
    });
    cleanups.push(() => quotaCp.stop());
    const inQuota = await rolloutsIn(client, quotaNs);
    cleanups.push(inQuota.stop);
    const name = uniqueName('deadline');
    const spec: NginxSpec = {
      replicas: 3,
      image: 'nginx:1.27',
      progressDeadlineSeconds: 3,
      rollbackOnFailure: true,
      strategy: { type: 'Canary', canary: { steps: [{ setWeight: 50 }, { pause: {} }] } },
    };
    await inQuota.create(name, spec);
    const stable = revisionOfSpec(spec);
    await inQuota.rolledOut(name, 3, stable);
    await inQuota.patchSpec(name, { image: 'nginx:1.28' });
    const update = revisionOfSpec({ ...spec, image: 'nginx:1.28' });
    await waitFor(
      'the canary paused at 2 of 3 pods',
      async () => (await inQuota.get(name)).status?.canary?.phase === 'Paused',
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    // No room for the surge pod the last step needs: the promoted canary stalls.
    await createPodQuota(client, quotaNs, 3);
    const promoted = await quotaCp.as('editor')(
      `/controlplane/v1/namespaces/${quotaNs}/nginxes/${name}/promote`,
      { method: 'POST' },
    );
    expect(promoted.status).toBe(200);
    const rolledBack = await waitFor(
      'Progressing=False/RolledBack and every pod on the stable revision',
      async () => {
        const nginx = await inQuota.get(name);
        const progressing = nginx.status?.conditions?.find((c) => c.type === 'Progressing');
        const all = inQuota.podsOf(name).filter(isActive);
        const home = all.length === 3 && all.every((p) => isReady(p) && revisionOf(p) === stable);
        return progressing?.reason === 'RolledBack' && progressing.status === 'False' && home && nginx;
      },
      { timeoutMs: 90_000, intervalMs: 250 },
    );
    const progressing = rolledBack.status?.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing?.message).toContain(`Rolled back to ${stable}`);
    expect(progressing?.message).toContain(update);
    expect(progressing?.observedGeneration).toBe(rolledBack.metadata.generation);
    expect(rolledBack.spec.image).toBe('nginx:1.28'); // the spec is never written by the controller
  }, 180_000);
});

describe('a canary across a change of leader', () => {
  it('resumes at the same step from status.canary alone: nothing moves while paused, a promote finishes it', async () => {
    const handoverNs = await createNamespace(client, 'canary-handover', cleanups);
    const inNs = await rolloutsIn(client, handoverNs);
    cleanups.push(inNs.stop);
    const env = { ...HEADLESS, WATCH_NAMESPACE: handoverNs, LEASE_NAMESPACE: handoverNs };
    const apps = await Promise.all([startApp(env), startApp(env)]);
    for (const app of apps) cleanups.push(() => app.kill());
    const [leader, standby] = await leaderAndStandby(apps[0]!, apps[1]!);
    const name = uniqueName('handover');
    const spec: NginxSpec = {
      replicas: 4,
      image: 'nginx:1.27',
      strategy: { type: 'Canary', canary: { steps: [{ setWeight: 50 }, { pause: {} }, { setWeight: 75 }] } },
    };
    await inNs.create(name, spec);
    const stable = revisionOfSpec(spec);
    await inNs.rolledOut(name, 4, stable);
    await inNs.patchSpec(name, { image: 'nginx:1.28' });
    const update = revisionOfSpec({ ...spec, image: 'nginx:1.28' });
    const paused = await waitFor(
      'the canary paused at step 1',
      async () => {
        const nginx = await inNs.get(name);
        return nginx.status?.canary?.step === 1 && nginx.status.canary.phase === 'Paused' && nginx;
      },
      { timeoutMs: 90_000, intervalMs: 200 },
    );
    const before = inNs
      .podsOf(name)
      .filter(isActive)
      .map((p) => p.metadata!.uid)
      .sort();

    // The standby reconciles nothing until it leads; it watches this namespace alone, whose one Nginx is this.
    await handOver(leader, standby);
    // The new leader has reconciled it from status.canary alone: anything it meant to move, it would have moved
    // then. Nothing did.
    const after = await inNs.get(name);
    expect(after.status?.canary).toEqual(paused.status?.canary);
    expect(
      inNs
        .podsOf(name)
        .filter(isActive)
        .map((p) => p.metadata!.uid)
        .sort(),
    ).toEqual(before);

    await client.request({
      method: 'PATCH',
      path: `${inNs.collection}/${name}`,
      contentType: 'application/merge-patch+json',
      body: { metadata: { annotations: { 'mycompany.com/promote': `${update}/1` } } },
    });
    const done = await inNs.rolledOut(name, 4, update);
    expect(done.status?.canary).toMatchObject({ phase: 'Promoted', step: 3 });
  }, 240_000);
});
