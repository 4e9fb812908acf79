import type { LivePod, Nginx, NginxCondition, NginxStatus } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { isMidRollout, rolloutViewOf } from './rollout-view';

const progressing = (status: NginxCondition['status'], reason: string): NginxCondition => ({
  type: 'Progressing',
  status,
  reason,
  message: `Progressing ${reason}`,
  lastTransitionTime: '2026-11-23T00:00:00Z',
});

const nginx = (replicas: number, status?: NginxStatus, generation = 2): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'team-a', generation },
  spec: { replicas },
  ...(status ? { status } : {}),
});

const settled = (n: number, extra: NginxStatus = {}): NginxStatus => ({
  replicas: n,
  updatedReplicas: n,
  readyReplicas: n,
  availableReplicas: n,
  observedGeneration: 2,
  currentRevision: 'new',
  updateRevision: 'new',
  conditions: [progressing('False', 'ReplicasReady')],
  ...extra,
});

const pod = (name: string, revision: string | null, terminating = false): LivePod => ({
  name,
  uid: name,
  phase: 'Running',
  ready: true,
  node: 'n1',
  restarts: 0,
  podIP: null,
  createdAt: null,
  ageSeconds: null,
  terminating,
  deletionTimestamp: null,
  resourceVersion: '1',
  revision,
});

describe('rolloutViewOf', () => {
  it('is unknown before the controller wrote any status', () => {
    expect(rolloutViewOf(nginx(2)).state).toBe('unknown');
  });

  it('is complete when the generation is observed and updated = available = desired with no old pod', () => {
    const view = rolloutViewOf(nginx(2, settled(2)), [pod('a', 'new'), pod('b', 'new')]);
    expect(view).toMatchObject({ state: 'complete', updated: 2, available: 2, desired: 2, oldPods: 0 });
    expect(view.message).toBe('Progressing ReplicasReady');
  });

  it('is progressing while the controller has not observed the latest generation', () => {
    expect(rolloutViewOf(nginx(2, settled(2), 3)).state).toBe('progressing');
  });

  it('is progressing while an old pod remains, even a terminating one, though the counts match', () => {
    const view = rolloutViewOf(nginx(2, settled(2)), [
      pod('a', 'new'),
      pod('b', 'new'),
      pod('c', 'old', true),
    ]);
    expect(view).toMatchObject({ state: 'progressing', oldPods: 1 });
  });

  it('leaves label-less legacy pods to the status, which alone knows whether they match the template', () => {
    expect(rolloutViewOf(nginx(1, settled(1)), [pod('a', null)]).state).toBe('complete');
    const behind = settled(1, { replicas: 2, updatedReplicas: 1 });
    expect(rolloutViewOf(nginx(1, behind), [pod('a', null), pod('b', 'new')])).toMatchObject({
      state: 'progressing',
      oldPods: 1,
    });
  });

  it('is progressing mid-rollout, and counts old pods from the status when no pods are given', () => {
    const status = settled(3, {
      replicas: 4,
      updatedReplicas: 1,
      availableReplicas: 3,
      currentRevision: 'old',
      conditions: [progressing('True', 'RollingUpdate')],
    });
    const view = rolloutViewOf(nginx(3, status));
    expect(view).toMatchObject({ state: 'progressing', updated: 1, oldPods: 3, currentRevision: 'old' });
    expect(isMidRollout(view)).toBe(true);
  });

  it('reads Paused (Unknown), ProgressDeadlineExceeded and InvalidConfig (False) from the Progressing condition', () => {
    const mid = { replicas: 3, updatedReplicas: 1 };
    const paused = rolloutViewOf(
      nginx(3, settled(3, { ...mid, conditions: [progressing('Unknown', 'Paused')] })),
    );
    expect(paused.state).toBe('paused');
    expect(isMidRollout(paused)).toBe(true);
    const stalled = settled(3, { ...mid, conditions: [progressing('False', 'ProgressDeadlineExceeded')] });
    expect(rolloutViewOf(nginx(3, stalled)).state).toBe('deadline-exceeded');
    const invalid = settled(3, { conditions: [progressing('False', 'InvalidConfig')] });
    expect(rolloutViewOf(nginx(3, invalid)).state).toBe('invalid-config');
  });

  it('does not call a scale-up or a fresh Nginx a rollout', () => {
    const scaling = settled(3, { replicas: 1, updatedReplicas: 1, availableReplicas: 1 });
    const view = rolloutViewOf(nginx(3, { ...scaling, conditions: [progressing('True', 'ScalingUp')] }));
    expect(view.state).toBe('progressing');
    expect(isMidRollout(view)).toBe(false);
    expect(isMidRollout(rolloutViewOf(nginx(2)))).toBe(false);
  });

  it('is complete at zero replicas once every pod is gone', () => {
    expect(rolloutViewOf(nginx(0, settled(0)), []).state).toBe('complete');
  });
});

describe('rolloutViewOf, canary and rollback', () => {
  const base = (status: Record<string, unknown>) =>
    ({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: 'web', namespace: 'ns', generation: 2 },
      spec: { replicas: 3 },
      status: { observedGeneration: 2, updateRevision: 'new', currentRevision: 'old', ...status },
    }) as never;

  it('says aborted while the canary of the update revision is aborted, and not for an older one', () => {
    const canary = { revision: 'new', step: 1, weight: 20, phase: 'Aborted' };
    expect(rolloutViewOf(base({ canary })).state).toBe('aborted');
    expect(rolloutViewOf(base({ canary: { ...canary, revision: 'older' } })).state).not.toBe('aborted');
  });

  it('says blue-green aborted while the blue-green of the update revision is aborted', () => {
    const blueGreen = { revision: 'new', activeRevision: 'old', phase: 'Aborted' };
    expect(rolloutViewOf(base({ blueGreen })).state).toBe('bluegreen-aborted');
    expect(rolloutViewOf(base({ blueGreen: { ...blueGreen, revision: 'older' } })).state).not.toBe(
      'bluegreen-aborted',
    );
  });

  it('says rolled back when the Progressing condition does', () => {
    const conditions = [
      {
        type: 'Progressing',
        status: 'False',
        reason: 'RolledBack',
        message: 'rolled back to old',
        lastTransitionTime: '2026-11-26T10:00:00Z',
      },
    ];
    expect(rolloutViewOf(base({ conditions })).state).toBe('rolled-back');
  });
});
