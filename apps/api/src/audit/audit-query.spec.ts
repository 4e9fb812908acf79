import { describe, expect, it } from 'vitest';
import { changeWhere, noopWhere, reconcileWhere, CHANGE_ORDER, RECONCILE_ORDER } from './audit-query.js';

const since = new Date('2026-11-01T00:00:00Z');
const until = new Date('2026-11-02T00:00:00Z');
const at = new Date('2026-11-01T12:00:00.5Z');

describe('reconcileWhere', () => {
  it('matches everything without filters', () => {
    expect(reconcileWhere({})).toEqual({});
  });

  it('filters by key, result and a half-open time window', () => {
    expect(reconcileWhere({ namespace: 'team', name: 'web', result: 'error', since, until })).toEqual({
      namespace: 'team',
      name: 'web',
      result: 'error',
      startedAt: { gte: since, lt: until },
    });
    expect(reconcileWhere({ since })).toEqual({ startedAt: { gte: since } });
    expect(reconcileWhere({ until })).toEqual({ startedAt: { lt: until } });
  });

  it('resumes strictly after the cursor in (startedAt desc, id desc) order', () => {
    expect(RECONCILE_ORDER).toEqual([{ startedAt: 'desc' }, { id: 'desc' }]);
    expect(reconcileWhere({ name: 'web' }, { at, id: 7 })).toEqual({
      AND: [{ name: 'web' }, { OR: [{ startedAt: { lt: at } }, { startedAt: at, id: { lt: 7 } }] }],
    });
  });
});

describe('changeWhere', () => {
  it('filters by key, actor, verb and time', () => {
    expect(changeWhere({ namespace: 'team', name: 'web', actor: 'alice', verb: 'apply', since })).toEqual({
      namespace: 'team',
      name: 'web',
      actor: 'alice',
      verb: 'apply',
      at: { gte: since },
    });
  });

  it('reads success as a 2xx code and failure as any other', () => {
    expect(changeWhere({ result: 'success' })).toEqual({ AND: [{}, { code: { gte: 200, lt: 300 } }] });
    expect(changeWhere({ result: 'failure' })).toEqual({
      AND: [{}, { OR: [{ code: { lt: 200 } }, { code: { gte: 300 } }] }],
    });
  });

  it('keeps the result filter and the cursor apart, both applying', () => {
    expect(CHANGE_ORDER).toEqual([{ at: 'desc' }, { id: 'desc' }]);
    expect(changeWhere({ actor: 'bob', result: 'failure' }, { at, id: 3 })).toEqual({
      AND: [
        { actor: 'bob' },
        { OR: [{ code: { lt: 200 } }, { code: { gte: 300 } }] },
        { OR: [{ at: { lt: at } }, { at, id: { lt: 3 } }] },
      ],
    });
  });
});

describe('noopWhere', () => {
  it('filters by namespace and name', () => {
    expect(noopWhere({})).toEqual({});
    expect(noopWhere({ namespace: 'team', name: 'web' })).toEqual({ namespace: 'team', name: 'web' });
  });
});
