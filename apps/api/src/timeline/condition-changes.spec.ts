import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { conditionChanges } from './condition-changes.js';

const nginx = (conditions: { type: string; status: 'True' | 'False'; at: string }[]): Nginx =>
  ({
    metadata: { name: 'web', namespace: 'shop', uid: 'n1' },
    spec: { replicas: 1 },
    status: {
      conditions: conditions.map(({ type, status, at }) => ({
        type,
        status,
        lastTransitionTime: at,
        reason: 'R',
        message: 'm',
      })),
    },
  }) as Nginx;
const seen = new Date('2026-11-26T11:00:00Z');

describe('conditionChanges', () => {
  it('keeps each condition whose status moved, at its transition time', () => {
    const before = nginx([{ type: 'Available', status: 'False', at: '2026-11-26T10:00:00Z' }]);
    const after = nginx([
      { type: 'Available', status: 'True', at: '2026-11-26T10:01:00Z' },
      { type: 'Progressing', status: 'True', at: '2026-11-26T10:01:00Z' },
    ]);
    expect(
      conditionChanges(before, after, seen).map((entry) => [entry.what, entry.at.toISOString()]),
    ).toEqual([
      ['Available=True', '2026-11-26T10:01:00.000Z'],
      ['Progressing=True', '2026-11-26T10:01:00.000Z'],
    ]);
    expect(conditionChanges(after, after, seen)).toEqual([]);
  });
});
