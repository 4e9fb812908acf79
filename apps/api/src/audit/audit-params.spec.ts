import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { encodeCursor } from './audit-cursor.js';
import {
  formatFromAccept,
  parseChangeParams,
  parseNoopParams,
  parseRfc3339,
  parseReconcileParams,
  type QueryParams,
} from './audit-params.js';

/** The StatusException a parse throws, or a failure when it does not throw one. */
function refusal(parse: () => unknown): StatusException {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(StatusException);
    return error as StatusException;
  }
  throw new Error('expected a 400 StatusException');
}

/** Expects a 400 Status naming `field`, as a Kubernetes client reads it. */
function expectBadParam(parse: () => unknown, field: string, message?: RegExp) {
  const error = refusal(parse);
  expect(error.code).toBe(400);
  expect(error.body).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    reason: 'BadRequest',
    code: 400,
    details: { causes: [{ reason: 'FieldValueInvalid', field }] },
  });
  expect(error.message).toContain(`"${field}"`);
  if (message) expect(error.message).toMatch(message);
}

describe('parseReconcileParams', () => {
  it('defaults to the newest 100 as JSON, unfiltered', () => {
    expect(parseReconcileParams({})).toEqual({ filters: {}, limit: 100, format: 'json' });
  });

  it('reads every filter', () => {
    const query = {
      namespace: 'team-a',
      name: 'web.v2',
      result: 'requeued',
      since: '2026-11-22T10:00:00Z',
      until: '2026-11-22T12:00:00+01:00',
      limit: '500',
      format: 'csv',
    };
    expect(parseReconcileParams(query)).toEqual({
      filters: {
        namespace: 'team-a',
        name: 'web.v2',
        result: 'requeued',
        since: new Date('2026-11-22T10:00:00Z'),
        until: new Date('2026-11-22T11:00:00Z'),
      },
      limit: 500,
      format: 'csv',
    });
  });

  it('treats empty parameters (a blank form field) as not given', () => {
    const query = { namespace: '', name: '', result: '', since: '', limit: '', continue: '', format: '' };
    expect(parseReconcileParams(query)).toEqual({ filters: {}, limit: 100, format: 'json' });
  });

  it.each(['0', '-1', '1.5', '501', 'abc', '1e2', ' 5', '0x10', '9999999999999999999999'])(
    'refuses limit=%j',
    (limit) => expectBadParam(() => parseReconcileParams({ limit }), 'limit', /1 to 500/),
  );

  it.each([
    ['result', 'failed'],
    ['result', 'SUCCESS'],
    ['format', 'xml'],
    ['namespace', 'Team_A'],
    ['namespace', 'a'.repeat(64)],
    ['namespace', '../kube-system'],
    ['name', 'web/../../etc'],
    ['name', 'WEB'],
    ['since', '2026-11-22'],
    ['since', '2026-11-22T10:00:00'],
    ['until', 'yesterday'],
    ['until', '1732269600'],
  ])('refuses %s=%j, naming the parameter', (field, value) => {
    expectBadParam(() => parseReconcileParams({ [field]: value }), field);
  });

  it('refuses a parameter given twice, or with brackets, rather than guessing', () => {
    expectBadParam(() => parseReconcileParams({ name: ['a', 'b'] }), 'name', /only once/);
    expectBadParam(() => parseReconcileParams({ limit: ['5', '5'] }), 'limit', /only once/);
    expectBadParam(
      () => parseReconcileParams({ since: { gt: 'x' } } as QueryParams),
      'since',
      /single value/,
    );
  });

  it('refuses since after until, and accepts an empty window', () => {
    expectBadParam(
      () => parseReconcileParams({ since: '2026-11-22T10:00:01Z', until: '2026-11-22T10:00:00Z' }),
      'since',
      /after until/,
    );
    expect(
      parseReconcileParams({ since: '2026-11-22T10:00:00Z', until: '2026-11-22T10:00:00Z' }).filters,
    ).toMatchObject({ since: new Date('2026-11-22T10:00:00Z') });
  });

  it('resumes from a continue token issued for the same filters, whatever the limit or format', () => {
    const at = new Date('2026-11-22T10:00:00.000Z');
    const token = encodeCursor('reconciles', { name: 'web' }, { at, id: 9 });
    expect(parseReconcileParams({ name: 'web', continue: token, limit: '5' })).toEqual({
      filters: { name: 'web' },
      limit: 5,
      after: { at, id: 9 },
      format: 'json',
    });
  });

  it('refuses a malformed, tampered or foreign continue token', () => {
    const token = encodeCursor('reconciles', { name: 'web' }, { at: new Date(0), id: 9 });
    expectBadParam(() => parseReconcileParams({ name: 'web', continue: 'not-a-token' }), 'continue');
    expectBadParam(() => parseReconcileParams({ name: 'web', continue: `${token}x` }), 'continue');
    expectBadParam(() => parseReconcileParams({ name: 'api', continue: token }), 'continue', /filters/);
    expectBadParam(() => parseChangeParams({ name: 'web', continue: token }), 'continue');
    expectBadParam(() => parseReconcileParams({ continue: '%00' }), 'continue');
  });

  it('takes the format from Accept when there is no format parameter', () => {
    expect(parseReconcileParams({}, 'application/x-ndjson').format).toBe('ndjson');
    expect(parseReconcileParams({}, 'text/csv').format).toBe('csv');
    expect(parseReconcileParams({ format: 'json' }, 'text/csv').format).toBe('json');
  });
});

describe('parseChangeParams', () => {
  it('reads actor, verb and result', () => {
    expect(parseChangeParams({ actor: 'ci-bot@team', verb: 'apply', result: 'failure' }).filters).toEqual({
      actor: 'ci-bot@team',
      verb: 'apply',
      result: 'failure',
    });
  });

  it.each([
    ['verb', 'get'],
    ['verb', 'PATCH'],
    ['result', 'error'],
    ['actor', 'a\nb'],
    ['actor', 'x'.repeat(254)],
  ])('refuses %s=%j', (field, value) => {
    expectBadParam(() => parseChangeParams({ [field]: value }), field);
  });
});

describe('parseNoopParams', () => {
  it('reads namespace and name, and refuses invalid ones', () => {
    expect(parseNoopParams({ namespace: 'default', name: 'web' })).toEqual({
      namespace: 'default',
      name: 'web',
    });
    expectBadParam(() => parseNoopParams({ namespace: ['a', 'b'] }), 'namespace');
  });
});

describe('parseRfc3339', () => {
  it.each([
    ['2026-11-22T10:00:00Z', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22t10:00:00z', '2026-11-22T10:00:00.000Z'],
    ['2026-11-22T10:00:00.5Z', '2026-11-22T10:00:00.500Z'],
    ['2026-11-22T10:00:00.123456789Z', '2026-11-22T10:00:00.124Z'],
    ['2026-11-22T10:00:00.123000Z', '2026-11-22T10:00:00.123Z'],
    ['2026-11-22T10:00:00+05:30', '2026-11-22T04:30:00.000Z'],
    ['2026-11-22T00:00:00-08:00', '2026-11-22T08:00:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['0050-01-01T00:00:00Z', '0050-01-01T00:00:00.000Z'],
  ])('reads %s', (text, iso) => {
    expect(parseRfc3339(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2026-11-22',
    '2026-11-22T10:00Z',
    '2026-11-22T10:00:00',
    '2026-11-22 10:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-11-22T24:00:00Z',
    '2026-11-22T10:60:00Z',
    '2026-12-31T23:59:60Z',
    '2026-11-22T10:00:00+24:00',
    '2026-11-22T10:00:00.Z',
    '2026-11-22T10:00:00.1234567890Z',
    '+002026-11-22T10:00:00Z',
    'Sun, 22 Nov 2026 10:00:00 GMT',
  ])('refuses %s', (text) => {
    expect(parseRfc3339(text)).toBeUndefined();
  });
});

describe('formatFromAccept', () => {
  it.each([
    [undefined, 'json'],
    ['*/*', 'json'],
    ['text/html,application/xhtml+xml', 'json'],
    ['application/x-ndjson', 'ndjson'],
    ['Text/CSV; charset=utf-8', 'csv'],
    ['text/csv;q=0, application/x-ndjson', 'ndjson'],
    ['application/json, text/csv', 'json'],
  ] as const)('reads %j as %s', (accept, format) => {
    expect(formatFromAccept(accept)).toBe(format);
  });
});
