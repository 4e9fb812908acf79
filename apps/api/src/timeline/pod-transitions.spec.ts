import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podTransitions } from './pod-transitions.js';

const at = new Date('2026-11-26T10:00:00Z');
const pod = (
  status: Partial<V1Pod['status']> = {},
  extra: Partial<V1Pod['metadata']> = {},
  node?: string,
): V1Pod => ({
  metadata: {
    name: 'web-1',
    namespace: 'shop',
    uid: 'p1',
    labels: { 'mycompany.com/nginx': 'web' },
    ownerReferences: [
      { apiVersion: 'mycompany.com/v1', kind: 'Nginx', name: 'web', uid: 'n1', controller: true },
    ],
    ...extra,
  },
  spec: { containers: [], ...(node ? { nodeName: node } : {}) },
  status,
});
const ready = (status: 'True' | 'False', time: string, reason?: string) => ({
  phase: 'Running',
  conditions: [
    { type: 'Ready', status, lastTransitionTime: time as unknown as Date, ...(reason ? { reason } : {}) },
  ],
});
const whats = (entries: { what: string }[]) => entries.map((entry) => entry.what);

describe('podTransitions', () => {
  it('tells created, scheduled, running, ready, unready, terminating and deleted, each with the pod and its Nginx', () => {
    const created = podTransitions(undefined, pod(), at);
    expect(created).toEqual([
      {
        at,
        namespace: 'shop',
        nginx: 'web',
        nginxUid: 'n1',
        kind: 'pod',
        what: 'created',
        pod: 'web-1',
        podUid: 'p1',
        node: null,
        dedupeKey: 'pod:p1:created',
      },
    ]);
    expect(whats(podTransitions(pod(), pod({}, {}, 'node-1'), at))).toEqual(['scheduled']);
    const up = pod(ready('True', '2026-11-26T10:00:05Z'), {}, 'node-1');
    expect(whats(podTransitions(pod({}, {}, 'node-1'), up, at))).toEqual(['running', 'ready']);
    const down = pod(ready('False', '2026-11-26T10:01:00Z', 'ContainersNotReady'), {}, 'node-1');
    const [unready] = podTransitions(up, down, at);
    expect(unready).toMatchObject({ what: 'unready', reason: 'ContainersNotReady', node: 'node-1' });
    expect(unready!.dedupeKey).toBe('pod:p1:unready@2026-11-26T10:01:00Z');
    const going = pod(ready('False', '2026-11-26T10:01:00Z'), { deletionTimestamp: at }, 'node-1');
    expect(whats(podTransitions(down, going, at))).toEqual(['terminating']);
    expect(whats(podTransitions(going, undefined, at))).toEqual(['deleted']);
    expect(podTransitions(up, up, at)).toEqual([]);
  });

  it('ignores pods of no Nginx', () => {
    expect(podTransitions(undefined, pod({}, { labels: {} }), at)).toEqual([]);
  });
});
