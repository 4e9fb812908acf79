import { describe, expect, it } from 'vitest';
import {
  auditQueryOf,
  auditSearchOf,
  draftOf,
  filtersOfDraft,
  isFiltered,
  normalisedQuery,
} from './audit-filters-url';

const params = (search: string) => new URLSearchParams(search);

describe('auditQueryOf', () => {
  it('reads the tab and filters from the URL', () => {
    expect(
      auditQueryOf(params('tab=changes&namespace=team-a&name=web&verb=rollback&result=failure'), null),
    ).toEqual({
      kind: 'changes',
      filters: { namespace: 'team-a', name: 'web', verb: 'rollback', result: 'failure' },
    });
  });

  it('defaults to reconciles with no filters', () => {
    expect(auditQueryOf(params(''), null)).toEqual({ kind: 'reconciles', filters: {} });
    expect(auditQueryOf(params('tab=nonsense&name='), null)).toEqual({ kind: 'reconciles', filters: {} });
  });

  it("drops what the list cannot filter by: another list's result, a verb on reconciles, an unknown verb", () => {
    expect(auditQueryOf(params('result=failure&verb=patch'), null).filters).toEqual({});
    expect(auditQueryOf(params('tab=changes&result=requeued&verb=get'), null).filters).toEqual({});
  });

  it('keeps a limited token in its namespaces', () => {
    expect(auditQueryOf(params('namespace=other'), ['team-a', 'team-b']).filters.namespace).toBe('team-a');
    expect(auditQueryOf(params('namespace=team-b'), ['team-a', 'team-b']).filters.namespace).toBe('team-b');
    expect(auditQueryOf(params(''), []).filters).toEqual({});
  });
});

describe('auditSearchOf', () => {
  it('writes the query back, without the default tab', () => {
    expect(auditSearchOf({ kind: 'reconciles', filters: {} })).toBe('');
    expect(auditSearchOf({ kind: 'reconciles', filters: { namespace: 'a', name: 'web' } })).toBe(
      '?namespace=a&name=web',
    );
    expect(auditSearchOf({ kind: 'changes', filters: { verb: 'rollback' } })).toBe(
      '?tab=changes&verb=rollback',
    );
  });

  it('round-trips with auditQueryOf', () => {
    const query = normalisedQuery(
      'changes',
      { namespace: 'a', name: 'web', result: 'success', verb: 'apply', since: '2026-01-01T00:00:00.000Z' },
      null,
    );
    expect(auditQueryOf(params(auditSearchOf(query).slice(1)), null)).toEqual(query);
  });
});

describe('isFiltered', () => {
  it("ignores a limited token's namespace", () => {
    expect(isFiltered({}, null)).toBe(false);
    expect(isFiltered({ namespace: 'a' }, null)).toBe(true);
    expect(isFiltered({ namespace: 'a' }, ['a'])).toBe(false);
    expect(isFiltered({ namespace: 'a', verb: 'rollback' }, ['a'])).toBe(true);
  });
});

describe('draftOf / filtersOfDraft', () => {
  it('round-trips filters through the form text', () => {
    const filters = { namespace: 'a', name: 'web', result: 'error', since: '2026-03-01T10:15:00.000Z' };
    expect(filtersOfDraft(draftOf(filters))).toEqual({
      filters: { ...filters, verb: undefined, until: undefined },
    });
  });

  it('trims text and refuses a range that ends before it starts', () => {
    const draft = { ...draftOf({}), name: ' web ', since: '2026-03-02T00:00', until: '2026-03-01T00:00' };
    const { filters, problem } = filtersOfDraft(draft);
    expect(filters.name).toBe('web');
    expect(problem).toMatch(/before/);
  });
});
