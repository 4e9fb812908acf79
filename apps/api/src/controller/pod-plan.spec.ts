import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { compareForDeletion, isActive, planPods, slowStartBatches } from './pod-plan.js';

interface PodShape {
  name: string;
  phase?: string;
  node?: string;
  ready?: boolean;
  restarts?: number;
  created?: string;
  deleting?: boolean;
}

function pod({
  name,
  phase = 'Running',
  node = 'kwok-node-0',
  ready = true,
  restarts = 0,
  created = '2026-11-22T10:00:00Z',
  deleting,
}: PodShape): V1Pod {
  return {
    metadata: {
      name,
      creationTimestamp: created as unknown as Date,
      ...(deleting ? { deletionTimestamp: '2026-11-22T11:00:00Z' as unknown as Date } : {}),
    },
    spec: { containers: [{ name: 'nginx' }], ...(node ? { nodeName: node } : {}) },
    status: {
      phase,
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [{ name: 'nginx', restartCount: restarts, ready, image: 'nginx', imageID: '' }],
    },
  };
}

const names = (pods: V1Pod[]) => pods.map((p) => p.metadata!.name);

describe('which pods count', () => {
  it('counts neither terminating nor finished pods as active', () => {
    expect(isActive(pod({ name: 'a' }))).toBe(true);
    expect(isActive(pod({ name: 'b', deleting: true }))).toBe(false);
    expect(isActive(pod({ name: 'c', phase: 'Failed' }))).toBe(false);
    expect(isActive(pod({ name: 'd', phase: 'Succeeded' }))).toBe(false);
    expect(isActive(pod({ name: 'e', phase: 'Pending', node: '' }))).toBe(true);
  });
});

describe('victim order for scale-down', () => {
  it('ranks unscheduled, then Pending, Unknown, Running; not ready; more restarts; newer first', () => {
    const pods = [
      pod({ name: 'running-ready-old', created: '2026-11-22T09:00:00Z' }),
      pod({ name: 'running-ready-new', created: '2026-11-22T10:00:00Z' }),
      pod({ name: 'running-ready-restarted', restarts: 3 }),
      pod({ name: 'running-not-ready', ready: false }),
      pod({ name: 'unknown', phase: 'Unknown', ready: false }),
      pod({ name: 'pending-scheduled', phase: 'Pending', ready: false }),
      pod({ name: 'unscheduled', phase: 'Pending', node: '', ready: false }),
    ];
    expect(names([...pods].sort(compareForDeletion))).toEqual([
      'unscheduled',
      'pending-scheduled',
      'unknown',
      'running-not-ready',
      'running-ready-restarted',
      'running-ready-new',
      'running-ready-old',
    ]);
  });

  it('is stable for otherwise equal pods', () => {
    const pods = [pod({ name: 'b' }), pod({ name: 'a' }), pod({ name: 'c' })];
    expect(names([...pods].sort(compareForDeletion))).toEqual(['a', 'b', 'c']);
  });
});

describe('planPods', () => {
  it('creates what is missing, up to the burst', () => {
    expect(planPods(3, [pod({ name: 'a' })])).toMatchObject({ create: 2, delete: [], active: 1 });
    expect(planPods(2000, [], 500).create).toBe(500);
  });

  it('deletes the surplus in victim order, up to the burst', () => {
    const pods = [
      pod({ name: 'ready' }),
      pod({ name: 'pending', phase: 'Pending', ready: false }),
      pod({ name: 'also-ready' }),
    ];
    const plan = planPods(1, pods);
    expect(plan.create).toBe(0);
    expect(plan.delete.map((d) => [d.pod.metadata!.name, d.reason])).toEqual([
      ['pending', 'scale-down'],
      ['also-ready', 'scale-down'],
    ]);
    expect(planPods(0, pods, 2).delete).toHaveLength(2);
  });

  it('deletes finished pods and replaces them', () => {
    const plan = planPods(2, [
      pod({ name: 'ok' }),
      pod({ name: 'failed', phase: 'Failed' }),
      pod({ name: 'done', phase: 'Succeeded' }),
    ]);
    expect(plan.create).toBe(1);
    expect(plan.delete.map((d) => [d.pod.metadata!.name, d.reason])).toEqual([
      ['failed', 'pod-failed'],
      ['done', 'pod-succeeded'],
    ]);
  });

  it('ignores pods already terminating: they are neither counted nor deleted again', () => {
    const plan = planPods(1, [
      pod({ name: 'going', deleting: true }),
      pod({ name: 'going-failed', phase: 'Failed', deleting: true }),
    ]);
    expect(plan).toEqual({ create: 1, delete: [], active: 0 });
  });

  it('does nothing at the desired count', () => {
    expect(planPods(2, [pod({ name: 'a' }), pod({ name: 'b' })])).toEqual({
      create: 0,
      delete: [],
      active: 2,
    });
    expect(planPods(0, [])).toEqual({ create: 0, delete: [], active: 0 });
  });
});

describe('slowStartBatches', () => {
  it('doubles from 1 and ends with the remainder', () => {
    expect(slowStartBatches(0)).toEqual([]);
    expect(slowStartBatches(1)).toEqual([1]);
    expect(slowStartBatches(10)).toEqual([1, 2, 4, 3]);
    expect(slowStartBatches(15)).toEqual([1, 2, 4, 8]);
    expect(slowStartBatches(500).reduce((a, b) => a + b)).toBe(500);
  });
});
