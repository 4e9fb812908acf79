import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { encodeCursor } from './audit-cursor.js';
import { DEFAULT_LIMIT, parseRefusalParams, type QueryParams } from './audit-params.js';
import { refusalWhere, REFUSAL_ORDER } from './audit-query.js';

function refusalOf(query: QueryParams): StatusException {
  try {
    parseRefusalParams(query);
  } catch (error) {
    expect(error).toBeInstanceOf(StatusException);
    return error as StatusException;
  }
  throw new Error('expected a 400');
}

describe('parseRefusalParams', () => {
  it('takes door, code, since, until and limit', () => {
    expect(
      parseRefusalParams({
        door: 'sign-in',
        code: '503',
        since: '2026-11-29T10:00:00Z',
        until: '2026-11-29T11:00:00Z',
        limit: '20',
      }),
    ).toEqual({
      filters: {
        door: 'sign-in',
        code: 503,
        since: new Date('2026-11-29T10:00:00Z'),
        until: new Date('2026-11-29T11:00:00Z'),
      },
      limit: 20,
      format: 'json',
    });
  });

  it('lists everything, a page of the default size, without parameters', () => {
    expect(parseRefusalParams({})).toEqual({ filters: {}, limit: DEFAULT_LIMIT, format: 'json' });
  });

  it.each([
    [{ door: 'ssh' }, 'door'],
    [{ code: '404' }, 'code'],
    [{ code: '401.0' }, 'code'],
    [{ since: 'yesterday' }, 'since'],
    [{ limit: '0' }, 'limit'],
    [{ limit: '501' }, 'limit'],
    [{ format: 'csv' }, 'format'],
    [{ door: ['rest', 'live'] }, 'door'],
    [{ continue: 'bm90LWEtdG9rZW4' }, 'continue'],
  ] as [QueryParams, string][])('answers %j with a 400 naming %s', (query, field) => {
    const status = refusalOf(query);
    expect(status.code).toBe(400);
    expect(status.details?.causes?.[0]?.field).toBe(field);
  });

  it('refuses a namespace: the list is the whole cluster’s, and a namespace must not vouch for a limited caller', () => {
    expect(refusalOf({ namespace: 'team-a' }).details?.causes?.[0]?.field).toBe('namespace');
  });

  it('takes back a continue token issued for the same filters only', () => {
    const position = { at: new Date('2026-11-29T10:01:00Z'), id: 7 };
    const token = encodeCursor('refusals', { door: 'rest' }, position);
    expect(parseRefusalParams({ door: 'rest', continue: token }).after).toEqual(position);
    expect(refusalOf({ door: 'live', continue: token }).code).toBe(400);
    const changes = encodeCursor('changes', { door: 'rest' }, position);
    expect(refusalOf({ door: 'rest', continue: changes }).code).toBe(400);
  });
});

describe('refusalWhere', () => {
  const since = new Date('2026-11-29T10:00:00Z');
  const until = new Date('2026-11-29T11:00:00Z');

  it('finds counts with a refusal in the window: last at or after since, first before until', () => {
    expect(refusalWhere({ door: 'rest', code: 401, since, until })).toEqual({
      door: 'rest',
      code: 401,
      lastAt: { gte: since },
      firstAt: { lt: until },
    });
  });

  it('resumes after a position by window and id, the list’s order', () => {
    const at = new Date('2026-11-29T10:05:00Z');
    expect(refusalWhere({}, { at, id: 3 })).toEqual({
      AND: [{}, { OR: [{ windowStart: { lt: at } }, { windowStart: at, id: { lt: 3 } }] }],
    });
    expect(REFUSAL_ORDER).toEqual([{ windowStart: 'desc' }, { id: 'desc' }]);
  });
});
