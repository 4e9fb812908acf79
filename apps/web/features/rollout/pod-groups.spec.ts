import type { LivePod } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { groupPodsByRevision, groupSummary } from './pod-groups';

const pod = (
  name: string,
  revision: string | null,
  createdAt: string,
  state: { ready?: boolean; terminating?: boolean } = {},
): LivePod => ({
  name,
  uid: `uid-${name}`,
  phase: 'Running',
  ready: state.ready ?? true,
  node: null,
  restarts: 0,
  podIP: null,
  createdAt,
  ageSeconds: null,
  terminating: state.terminating ?? false,
  deletionTimestamp: null,
  resourceVersion: '1',
  revision,
});

describe('groupPodsByRevision', () => {
  it('gives no group for no pods', () => {
    expect(groupPodsByRevision([], 'r3')).toEqual([]);
  });

  it('puts the update revision first, then newer revisions before older ones, legacy pods last', () => {
    const pods = [
      pod('legacy', null, '2026-01-01T00:00:00Z'),
      pod('one', 'r1', '2026-01-02T00:00:00Z'),
      pod('two', 'r2', '2026-01-03T00:00:00Z'),
      pod('three', 'r3', '2026-01-04T00:00:00Z'),
      pod('one-b', 'r1', '2026-01-02T01:00:00Z'),
    ];
    const groups = groupPodsByRevision(pods, 'r3');
    expect(groups.map((g) => g.revision)).toEqual(['r3', 'r2', 'r1', null]);
    expect(groups.map((g) => g.current)).toEqual([true, false, false, false]);
    expect(groups[2]!.pods.map((p) => p.name)).toEqual(['one', 'one-b']);
    expect(groups.flatMap((g) => g.pods)).toHaveLength(pods.length);
  });

  it('marks no group current when the update revision has no pod yet (or is unknown)', () => {
    const pods = [pod('a', 'r1', '2026-01-01T00:00:00Z')];
    expect(groupPodsByRevision(pods, 'r2').map((g) => g.current)).toEqual([false]);
    expect(groupPodsByRevision(pods, undefined).map((g) => g.current)).toEqual([false]);
  });

  it('counts total, ready (not terminating) and terminating pods per group', () => {
    const pods = [
      pod('a', 'r1', '2026-01-01T00:00:00Z'),
      pod('b', 'r1', '2026-01-01T00:00:01Z', { ready: false }),
      pod('c', 'r1', '2026-01-01T00:00:02Z', { terminating: true }),
    ];
    const [group] = groupPodsByRevision(pods, 'r1');
    expect(group).toMatchObject({ total: 3, ready: 1, terminating: 1 });
    expect(groupSummary(group!)).toBe('3 pods · 1 ready · 1 terminating');
    expect(groupSummary({ ...group!, total: 1, ready: 1, terminating: 0 })).toBe('1 pod · 1 ready');
  });
});
