import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../audit/audit-cursor.js';
import { StatusException } from '../http/kube-status.js';
import { parseTimelineParams, toCursor } from './timeline-params.js';

const parse = (query: Record<string, string>) => parseTimelineParams(query, 'shop', 'web');
const fieldOf = (query: Record<string, string>) => {
  try {
    parse(query);
  } catch (error) {
    return (error as StatusException).body.details?.causes?.[0]?.field;
  }
  return undefined;
};

describe('parseTimelineParams', () => {
  it('reads kinds, uid, window and limit, and resumes from its own continue token', () => {
    const { filters, limit } = parse({
      kind: 'pod,change,pod',
      uid: 'a1-b2',
      since: '2026-11-26T10:00:00Z',
      limit: '20',
    });
    expect(filters).toEqual({
      namespace: 'shop',
      name: 'web',
      kinds: ['change', 'pod'],
      uid: 'a1-b2',
      since: new Date('2026-11-26T10:00:00Z'),
    });
    expect(limit).toBe(20);
    const position = { at: new Date('2026-11-26T10:00:01.000Z'), rank: 2, id: 41 };
    const token = encodeCursor('timeline', filters, toCursor(position));
    expect(
      parse({ kind: 'pod,change', uid: 'a1-b2', since: '2026-11-26T10:00:00Z', continue: token }).after,
    ).toEqual(position);
  });

  it('refuses bad parameters naming them', () => {
    expect(fieldOf({ kind: 'gossip' })).toBe('kind');
    expect(fieldOf({ uid: 'x y' })).toBe('uid');
    expect(fieldOf({ limit: '501' })).toBe('limit');
    expect(fieldOf({ until: 'soon' })).toBe('until');
    const token = encodeCursor('timeline', { namespace: 'shop', name: 'web' }, { at: new Date(0), id: 3 });
    expect(fieldOf({ kind: 'pod', continue: token })).toBe('continue');
  });

  it('reads a watch: from a list’s resourceVersion or from now, for at most 30 minutes', () => {
    expect(parse({ watch: 'true', resourceVersion: '12.40.7', timeoutSeconds: '60' }).watch).toEqual({
      from: { changes: 12, reconciles: 40, timeline: 7 },
      timeoutSeconds: 60,
    });
    expect(parse({ watch: '1' }).watch).toEqual({ timeoutSeconds: 1800 });
    expect(parse({ watch: 'true', resourceVersion: '0', timeoutSeconds: '99999' }).watch).toEqual({
      timeoutSeconds: 1800,
    });
    expect(parse({ watch: 'false' }).watch).toBeUndefined();
  });

  it('refuses a bad watch naming the parameter', () => {
    expect(fieldOf({ watch: 'yes' })).toBe('watch');
    expect(fieldOf({ watch: 'true', resourceVersion: '12' })).toBe('resourceVersion');
    expect(fieldOf({ watch: 'true', resourceVersion: '1.2.x' })).toBe('resourceVersion');
    expect(fieldOf({ watch: 'true', timeoutSeconds: '-1' })).toBe('timeoutSeconds');
    expect(fieldOf({ resourceVersion: '1.2.3' })).toBe('resourceVersion');
    const token = encodeCursor('timeline', { namespace: 'shop', name: 'web' }, { at: new Date(0), id: 3 });
    expect(fieldOf({ watch: 'true', continue: token })).toBe('continue');
  });
});
