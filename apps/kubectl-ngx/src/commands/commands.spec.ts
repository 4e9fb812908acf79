import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { nginxRow } from './get.js';
import { undoTarget } from './revisions.js';
import { timelineLine } from './timeline.js';

describe('nginxRow', () => {
  const nginx = {
    metadata: { namespace: 'team', name: 'web', creationTimestamp: '2026-11-28T10:00:00Z' },
    spec: {
      replicas: 4,
      strategy: { type: 'Canary', canary: { steps: [{ setWeight: 25 }, { pause: {} }] } },
    },
    status: {
      readyReplicas: 3,
      updateRevision: 'abc123',
      conditions: [
        {
          type: 'Progressing',
          status: 'Unknown',
          reason: 'CanaryPaused',
          message: '',
          lastTransitionTime: '',
        },
      ],
      canary: { revision: 'abc123', step: 1, weight: 25, phase: 'Paused' },
    },
  } as unknown as Nginx;
  it('shows ready/desired, revision, phase, canary step of steps, weight, analysis and age', () => {
    expect(nginxRow(nginx, Date.parse('2026-11-28T10:05:00Z'), false)).toEqual([
      'web',
      '3/4',
      'abc123',
      'CanaryPaused',
      '2/2',
      '25%',
      '-',
      '5m',
    ]);
    expect(nginxRow({ ...nginx, status: undefined }, Date.parse('2026-11-28T10:00:30Z'), true)).toEqual([
      'team',
      'web',
      '0/4',
      '<none>',
      'Unknown',
      '-',
      '-',
      '-',
      '30s',
    ]);
  });
});

describe('undoTarget', () => {
  const item = (revision: number, current = false) =>
    ({ revision, current }) as Parameters<typeof undoTarget>[0][0];
  it('is the newest revision other than the current one, or the one asked for', () => {
    expect(undoTarget([item(3, true), item(1), item(2)], 'web')).toBe(2);
    expect(undoTarget([item(3), item(1), item(2, true)], 'web')).toBe(3);
    expect(undoTarget([item(3, true)], 'web', 1)).toBe(1);
    expect(() => undoTarget([item(1, true)], 'web')).toThrow(/no revision to roll back to/);
  });
});

describe('timelineLine', () => {
  it('puts the time, the kind, what happened and its causes in words on one line', () => {
    expect(
      timelineLine({
        at: '2026-11-28T10:00:00.123Z',
        kind: 'pod',
        text: '2 pods created',
        causeTexts: ['erin scaled 2 → 4 via kube-apiserver'],
      }),
    ).toBe('2026-11-28T10:00:00.123Z  pod        2 pods created  ← erin scaled 2 → 4 via kube-apiserver');
  });
});
