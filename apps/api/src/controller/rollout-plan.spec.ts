import type { V1Pod } from '@kubernetes/client-node';
import {
  LABEL_REVISION,
  TEMPLATE_FIELDS,
  podTemplateOf,
  templateFields,
  type NginxStrategy,
} from '@ngx/nginx-api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isActive } from './pod-plan.js';
import { isAvailable, planRollout, rollingBounds, runsRevision, type RolloutInput } from './rollout-plan.js';

const NOW = Date.parse('2026-11-23T10:00:00Z');
const OLD = 'old';
const NEW = 'new';
const TEMPLATE = podTemplateOf({ replicas: 1, image: 'nginx:1.27' });

let count = 0;
function pod(
  revision: string,
  options: { ready?: boolean; readyAt?: number; terminating?: boolean } = {},
): V1Pod {
  const ready = options.ready ?? true;
  return {
    metadata: {
      name: `web-${++count}`,
      labels: { [LABEL_REVISION]: revision },
      creationTimestamp: new Date(NOW - 60_000 + count) as unknown as Date,
      ...(options.terminating ? { deletionTimestamp: new Date(NOW) as unknown as Date } : {}),
    },
    spec: { nodeName: 'node-1', containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    status: {
      phase: 'Running',
      conditions: [
        {
          type: 'Ready',
          status: ready ? 'True' : 'False',
          lastTransitionTime: new Date(options.readyAt ?? NOW - 60_000) as unknown as Date,
        },
      ],
    },
  };
}

const pods = (n: number, revision: string, options?: Parameters<typeof pod>[1]) =>
  Array.from({ length: n }, () => pod(revision, options));

const plan = (input: Partial<RolloutInput> & { pods: V1Pod[] }) =>
  planRollout({
    replicas: 10,
    strategy: undefined,
    updateRevision: NEW,
    template: TEMPLATE,
    minReadySeconds: 0,
    now: NOW,
    burst: 500,
    ...input,
  });

const rolling = (maxSurge: number | string, maxUnavailable: number | string): NginxStrategy => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxSurge, maxUnavailable },
});

describe('rollingBounds', () => {
  it("rounds maxSurge up and maxUnavailable down, with a Deployment's defaults of 25% each", () => {
    expect(rollingBounds(undefined, 10)).toEqual({ maxSurge: 3, maxUnavailable: 2 });
    expect(rollingBounds(rolling('30%', '30%'), 10)).toEqual({ maxSurge: 3, maxUnavailable: 3 });
    expect(rollingBounds(rolling('10%', '10%'), 30)).toEqual({ maxSurge: 3, maxUnavailable: 3 });
    expect(rollingBounds(rolling(2, 0), 10)).toEqual({ maxSurge: 2, maxUnavailable: 0 });
  });

  it('lets one pod go when both round to 0, so the rollout can move', () => {
    expect(rollingBounds(rolling(0, '10%'), 5)).toEqual({ maxSurge: 0, maxUnavailable: 1 });
  });
});

describe('planRollout', () => {
  it('scales the update revision when there is nothing old', () => {
    expect(plan({ pods: pods(7, NEW) }).create).toBe(3);
    const down = plan({ replicas: 5, pods: pods(7, NEW) });
    expect(down.delete.map((d) => d.reason)).toEqual(['scale-down', 'scale-down']);
  });

  it('surges first with maxUnavailable 0, deleting old pods only as new ones become available', () => {
    const start = plan({ strategy: rolling(2, 0), pods: pods(10, OLD) });
    expect(start).toMatchObject({ create: 2, delete: [] });
    const waiting = plan({
      strategy: rolling(2, 0),
      pods: [...pods(10, OLD), ...pods(2, NEW, { ready: false })],
    });
    expect(waiting).toMatchObject({ create: 0, delete: [] });
    const moving = plan({ strategy: rolling(2, 0), pods: [...pods(10, OLD), ...pods(2, NEW)] });
    expect(moving.create).toBe(0);
    expect(moving.delete.map((d) => d.reason)).toEqual(['rolling-update', 'rolling-update']);
  });

  it('deletes old pods first when it may be unavailable, and never below replicas - maxUnavailable', () => {
    const first = plan({ strategy: rolling(0, 3), pods: pods(10, OLD) });
    expect(first).toMatchObject({ create: 0 });
    expect(first.delete).toHaveLength(3);
  });

  it('removes old pods that are not available before available ones', () => {
    const sick = pod(OLD, { ready: false });
    const result = plan({ strategy: rolling(1, 1), pods: [...pods(9, OLD), sick] });
    expect(result.delete[0]!.pod).toBe(sick);
  });

  it('counts a ready pod as available only after minReadySeconds, and says when to look again', () => {
    const fresh = pod(NEW, { readyAt: NOW - 4_000 });
    expect(isAvailable(fresh, 10, NOW)).toBe(false);
    expect(isAvailable(fresh, 4, NOW)).toBe(true);
    const result = plan({ strategy: rolling(1, 0), minReadySeconds: 10, pods: [...pods(10, OLD), fresh] });
    expect(result.delete).toEqual([]);
    expect(result.availableInMs).toBe(6_000);
  });

  it('Recreate deletes every old pod and creates nothing until the last is gone', () => {
    const recreate: NginxStrategy = { type: 'Recreate' };
    const first = plan({ strategy: recreate, pods: pods(10, OLD) });
    expect(first).toMatchObject({ create: 0 });
    expect(first.delete.map((d) => d.reason)).toEqual(Array(10).fill('recreate'));
    expect(plan({ strategy: recreate, pods: pods(1, OLD, { terminating: true }) }).create).toBe(0);
    expect(plan({ strategy: recreate, pods: [] }).create).toBe(10);
  });

  it('sheds the surplus of a lowered replicas old pods first', () => {
    const result = plan({ replicas: 3, strategy: rolling(1, 0), pods: [...pods(4, NEW), ...pods(6, OLD)] });
    expect(result.delete).toHaveLength(6);
    expect(result.delete.every((d) => d.pod.metadata!.labels![LABEL_REVISION] === OLD)).toBe(true);
  });

  it('counts a pod from before revisions as the update revision only when the template is its image alone', () => {
    const legacy: V1Pod = {
      metadata: { name: 'web-x' },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    };
    expect(runsRevision(legacy, NEW, TEMPLATE)).toBe(true);
    expect(runsRevision(legacy, NEW, { ...TEMPLATE, image: 'nginx:1.28' })).toBe(false);
    expect(runsRevision(legacy, NEW, { ...TEMPLATE, config: 'server {}' })).toBe(false);
  });

  it('never counts a pod from before revisions for a template that sets any field beyond its image', () => {
    const legacy: V1Pod = {
      metadata: { name: 'web-x' },
      spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }] },
    };
    for (const name of TEMPLATE_FIELDS.filter((field) => field !== 'image')) {
      const template = podTemplateOf({
        replicas: 1,
        image: 'nginx:1.27',
        [name]: templateFields[name].example,
      });
      expect(runsRevision(legacy, NEW, template), name).toBe(false);
    }
  });

  it('caps creations and deletions at the burst', () => {
    expect(plan({ replicas: 1000, burst: 100, pods: [] }).create).toBe(100);
    expect(plan({ strategy: { type: 'Recreate' }, burst: 4, pods: pods(10, OLD) }).delete).toHaveLength(4);
  });
});

/**
 * A rollout simulated sync by sync: each plan is applied at once (deletions vanish, creations appear not ready),
 * then some pods turn ready. The bounds must hold after every step, and the rollout must end with exactly
 * `replicas` pods of the new revision.
 */
describe('planRollout, simulated', () => {
  const strategy = fc.oneof(
    fc
      .record({
        maxSurge: fc.oneof(
          fc.integer({ min: 0, max: 5 }),
          fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`),
        ),
        maxUnavailable: fc.oneof(
          fc.integer({ min: 0, max: 5 }),
          fc.integer({ min: 0, max: 100 }).map((p) => `${p}%`),
        ),
      })
      .filter((r) => !(String(r.maxSurge).startsWith('0') && String(r.maxUnavailable).startsWith('0')))
      .map((rollingUpdate): NginxStrategy => ({ type: 'RollingUpdate', rollingUpdate })),
    fc.constant<NginxStrategy>({ type: 'Recreate' }),
  );

  it('never exceeds the surge bound nor drops below the availability bound, and converges', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 20 }),
        strategy,
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 200, maxLength: 200 }),
        (replicas, strategy, luck) => {
          let state = pods(replicas, OLD);
          const { maxSurge, maxUnavailable } = rollingBounds(strategy, replicas);
          const recreate = strategy.type === 'Recreate';
          for (let step = 0; step < 200; step++) {
            const result = plan({ replicas, strategy, pods: state });
            const gone = new Set(result.delete.map((d) => d.pod));
            state = [...state.filter((p) => !gone.has(p)), ...pods(result.create, NEW, { ready: false })];
            const active = state.filter(isActive);
            if (!recreate) {
              expect(active.length).toBeLessThanOrEqual(replicas + maxSurge);
              expect(active.filter((p) => isAvailable(p, 0, NOW)).length).toBeGreaterThanOrEqual(
                replicas - maxUnavailable,
              );
            } else {
              const revisions = new Set(active.map((p) => p.metadata!.labels![LABEL_REVISION]));
              expect(revisions.size).toBeLessThanOrEqual(1);
            }
            // Some pods come up.
            state = state.map((p) =>
              p.status!.conditions![0]!.status === 'False' && (luck[step]! > 0.3 || step % 7 === 6)
                ? pod(NEW)
                : p,
            );
            const done =
              state.length === replicas &&
              state.every((p) => runsRevision(p, NEW, TEMPLATE) && isAvailable(p, 0, NOW));
            if (done) return;
          }
          throw new Error(`did not converge: ${state.length} pods`);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('planRollout, paused', () => {
  it('holds both revisions while paused: no rollout step, scaling keeps to the revisions as they stand', () => {
    const mixed = [...pods(6, OLD), ...pods(4, NEW)];
    expect(plan({ paused: true, strategy: rolling(2, 0), pods: mixed })).toMatchObject({
      create: 0,
      delete: [],
    });
    const up = plan({ paused: true, replicas: 12, pods: mixed });
    expect(up.create).toBe(2);
    expect(up.createLike?.metadata?.labels?.[LABEL_REVISION]).toBe(OLD);
    const down = plan({ paused: true, replicas: 7, pods: mixed });
    expect(down.delete).toHaveLength(3);
    expect(down.delete.every((d) => d.pod.metadata!.labels![LABEL_REVISION] === OLD)).toBe(true);
  });

  it('scales the update revision as usual when nothing old is left', () => {
    expect(plan({ paused: true, pods: pods(8, NEW) })).toMatchObject({ create: 2 });
    expect(plan({ paused: true, pods: pods(8, NEW) }).createLike).toBeUndefined();
  });
});

describe('planRollout, a template that cannot run', () => {
  it('never makes a pod of it: the old revision is kept and scaled, a new Nginx gets no pod', () => {
    const held = plan({ invalid: true, strategy: rolling(2, 0), pods: pods(10, OLD) });
    expect(held).toMatchObject({ create: 0, delete: [] });
    const up = plan({ invalid: true, replicas: 12, pods: pods(10, OLD) });
    expect(up.create).toBe(2);
    expect(up.createLike?.metadata?.labels?.[LABEL_REVISION]).toBe(OLD);
    expect(plan({ invalid: true, pods: [] })).toMatchObject({ create: 0, delete: [] });
  });
});
