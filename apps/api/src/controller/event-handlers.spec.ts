import type { V1Pod, V1PodDisruptionBudget, V1ResourceQuota } from '@kubernetes/client-node';
import { DeletedFinalStateUnknown } from '@ngx/kube-runtime';
import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import {
  budgetChangeMatters,
  nginxEventHandlers,
  ownedEventHandlers,
  nginxNeedsSync,
  podEventHandlers,
  quotaEventHandlers,
  quotaFreedRoom,
  refusedCreation,
  type ControllerEvents,
} from './event-handlers.js';

function recorder() {
  const calls: string[] = [];
  const events: ControllerEvents = {
    enqueue: (key, trigger, afterMs) =>
      calls.push(`enqueue ${key} ${trigger}${afterMs === undefined ? '' : ` after ${afterMs} ms`}`),
    creationObserved: (key) => calls.push(`created ${key}`),
    deletionObserved: (key, pod) => calls.push(`deleted ${key} ${pod}`),
    strayCandidate: (key, pod) => calls.push(`stray ${key} ${pod.metadata?.name}`),
    podInWatch: (key, uid) => calls.push(`in-watch ${key} ${uid}`),
    nginxGone: (key) => calls.push(`gone ${key}`),
  };
  return { calls, events };
}

const nginx = (meta: Partial<Nginx['metadata']> = {}, status?: Nginx['status']): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'team', uid: 'u1', generation: 1, resourceVersion: '1', ...meta },
  spec: { replicas: 2 },
  ...(status ? { status } : {}),
});

const pod = (name: string, extra: Partial<V1Pod['metadata']> = {}): V1Pod => ({
  metadata: {
    name,
    namespace: 'team',
    uid: `uid-${name}`,
    labels: { 'mycompany.com/nginx': 'web' },
    ownerReferences: [
      { apiVersion: 'mycompany.com/v1', kind: 'Nginx', name: 'web', uid: 'u1', controller: true },
    ],
    ...extra,
  },
});

describe('Nginx events', () => {
  it('sync on a new generation, a new uid, the start of deletion and a resync, not on status-only updates', () => {
    const base = nginx();
    expect(nginxNeedsSync(base, nginx({ generation: 2 }))).toBe(true);
    expect(nginxNeedsSync(base, nginx({ uid: 'u2' }))).toBe(true);
    expect(nginxNeedsSync(base, nginx({ deletionTimestamp: new Date() }))).toBe(true);
    expect(nginxNeedsSync(base, base)).toBe(true);
    expect(nginxNeedsSync(base, nginx({ resourceVersion: '2' }, { replicas: 1 }))).toBe(false);
    expect(nginxNeedsSync(base, nginx({ resourceVersion: '3', labels: { a: 'b' } }))).toBe(false);
  });

  it("sync on a canary's promote or abort request, not on other annotations", () => {
    const base = nginx();
    const annotated = (annotations: Record<string, string>) => nginx({ resourceVersion: '2', annotations });
    expect(nginxNeedsSync(base, annotated({ 'mycompany.com/promote': 'abc/1' }))).toBe(true);
    expect(nginxNeedsSync(base, annotated({ 'mycompany.com/abort': 'abc' }))).toBe(true);
    expect(nginxNeedsSync(base, annotated({ note: 'x' }))).toBe(false);
  });

  it('enqueue by key with their trigger, and forget what was kept for a deleted Nginx', () => {
    const { calls, events } = recorder();
    const handlers = nginxEventHandlers(events);
    handlers.add!(nginx(), false);
    handlers.update!(nginx(), nginx({ resourceVersion: '2' }, { replicas: 2 }));
    handlers.update!(nginx(), nginx({ generation: 2 }));
    handlers.delete!(new DeletedFinalStateUnknown('team/web', nginx()));
    expect(calls).toEqual([
      'enqueue team/web nginx-added',
      'enqueue team/web nginx-updated',
      'gone team/web',
      'enqueue team/web nginx-deleted',
    ]);
  });
});

describe('pod events', () => {
  it('observe creations and deletions for the owner, and enqueue it', () => {
    const { calls, events } = recorder();
    const handlers = podEventHandlers(events);
    handlers.add!(pod('a'), false);
    handlers.update!(pod('a'), pod('a', { deletionTimestamp: new Date() }));
    handlers.delete!(pod('a', { deletionTimestamp: new Date() }));
    expect(calls).toEqual([
      'created team/web',
      'in-watch team/web uid-a',
      'enqueue team/web pod-event',
      'deleted team/web team/a',
      'enqueue team/web pod-event',
      'deleted team/web team/a',
      'enqueue team/web pod-event',
    ]);
  });

  it('take a controlled pod that left the watch unmarked for a stray, and wake both owners of a relabelled orphan', () => {
    const { calls, events } = recorder();
    const handlers = podEventHandlers(events);
    handlers.delete!(new DeletedFinalStateUnknown('team/b', pod('b')));
    const orphan = (label: string) =>
      pod('c', { ownerReferences: [], labels: { 'mycompany.com/nginx': label } });
    handlers.update!(orphan('web'), orphan('api'));
    handlers.add!(pod('unowned', { ownerReferences: [], labels: {} }), false);
    expect(calls).toEqual([
      'deleted team/web team/b',
      'stray team/web b',
      'enqueue team/web pod-event',
      'enqueue team/web pod-event',
      'enqueue team/api pod-event',
    ]);
  });
});

describe('quota events', () => {
  const quota = (hard: Record<string, string>, used: Record<string, string>): V1ResourceQuota => ({
    metadata: { name: 'q', namespace: 'team' },
    status: { hard, used },
  });

  it('see room freed when a limit is raised or lifted or usage falls, not when usage grows or a limit appears', () => {
    const full = quota({ pods: '2', 'requests.cpu': '1' }, { pods: '2', 'requests.cpu': '500m' });
    expect(
      quotaFreedRoom(full, quota({ pods: '10', 'requests.cpu': '1' }, { pods: '2', 'requests.cpu': '500m' })),
    ).toBe(true);
    expect(
      quotaFreedRoom(full, quota({ pods: '2', 'requests.cpu': '1' }, { pods: '1', 'requests.cpu': '500m' })),
    ).toBe(true);
    expect(quotaFreedRoom(full, quota({ 'requests.cpu': '1' }, { 'requests.cpu': '500m' }))).toBe(true);
    expect(
      quotaFreedRoom(full, quota({ pods: '2', 'requests.cpu': '1.5' }, { pods: '2', 'requests.cpu': '1' })),
    ).toBe(false);
    expect(
      quotaFreedRoom(full, quota({ pods: '2', 'requests.cpu': '1' }, { pods: '2', 'requests.cpu': '900m' })),
    ).toBe(false);
    expect(quotaFreedRoom(quota({}, {}), quota({ pods: '5' }, { pods: '0' }))).toBe(false);
    expect(quotaFreedRoom(full, full)).toBe(false);
  });

  it('wake, at once and again shortly after, only the Nginxes of the namespace whose creations were refused', () => {
    const { calls, events } = recorder();
    const refused = nginx(
      {},
      {
        conditions: [
          {
            type: 'ReplicaFailure',
            status: 'True',
            reason: 'FailedCreate',
            message: 'quota',
            lastTransitionTime: '',
          },
        ],
      },
    );
    expect(refusedCreation(refused)).toBe(true);
    expect(refusedCreation(nginx())).toBe(false);
    const handlers = quotaEventHandlers(events, (namespace) => (namespace === 'team' ? ['team/web'] : []));
    const before = quota({ pods: '1' }, { pods: '1' });
    handlers.update!(before, quota({ pods: '1' }, { pods: '1' }));
    handlers.update!(before, before); // a resync replay
    handlers.update!(before, quota({ pods: '3' }, { pods: '1' }));
    handlers.delete!(before);
    const wake = [
      'enqueue team/web quota-changed',
      'enqueue team/web quota-changed after 1000 ms',
      'enqueue team/web quota-changed after 5000 ms',
    ];
    expect(calls).toEqual([...wake, ...wake]);
  });
});

describe('events of owned objects', () => {
  const budget = (generation: number, status?: V1PodDisruptionBudget['status']): V1PodDisruptionBudget => ({
    metadata: { name: 'web', namespace: 'team', generation, labels: { 'mycompany.com/nginx': 'web' } },
    ...(status ? { status } : {}),
  });
  const counted = (disruptionsAllowed: number, observedGeneration = 1) => ({
    observedGeneration,
    disruptionsAllowed,
    currentHealthy: 2,
    desiredHealthy: 2 - disruptionsAllowed,
    expectedPods: 2,
  });

  it('wake the Nginx their label names, on every change unless told which matter', () => {
    const { calls, events } = recorder();
    const handlers = ownedEventHandlers<V1PodDisruptionBudget>(events);
    handlers.add!(budget(1), false);
    handlers.update!(budget(1), budget(1, counted(0)));
    handlers.delete!(new DeletedFinalStateUnknown('team/web', budget(1)));
    handlers.add!({ metadata: { name: 'other', namespace: 'team' } }, false);
    expect(calls).toEqual(Array(3).fill('enqueue team/web owned-changed'));
  });

  it('count a budget’s new generation and new figures, not a status rewrite with the same figures', () => {
    const same = budget(2, counted(1, 2));
    expect(budgetChangeMatters(budget(1, counted(0)), budget(2, counted(0)))).toBe(true);
    expect(budgetChangeMatters(budget(2, counted(0)), budget(2, counted(1, 2)))).toBe(true); // counted after the sync
    expect(budgetChangeMatters(budget(2), budget(2, counted(0, 2)))).toBe(true); // counted for the first time
    expect(budgetChangeMatters(same, same)).toBe(true); // a resync
    expect(budgetChangeMatters(same, budget(2, { ...counted(1, 2), expectedPods: 3 }))).toBe(false);
    expect(budgetChangeMatters(same, budget(2, counted(1, 2)))).toBe(false);
  });
});
