import { describe, expect, it } from 'vitest';
import { StatusException } from './kube-status.js';
import { checkedParam, oneOfParam, rawParam, singleParam, type QueryParams } from './query-params.js';

/** A query object as Express 5's parser makes it: no prototype. */
const query = (entries: Record<string, unknown>): QueryParams =>
  Object.assign(Object.create(null) as QueryParams, entries);

function refusal(read: () => unknown): StatusException {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(StatusException);
    return error as StatusException;
  }
  throw new Error('expected a 400');
}

describe('query parameters', () => {
  it('reads one value as sent, empty included; singleParam counts an empty one as absent', () => {
    expect(rawParam(query({ watch: '' }), 'watch')).toBe('');
    expect(singleParam(query({ watch: '' }), 'watch')).toBeUndefined();
    expect(singleParam(query({ name: 'web' }), 'name')).toBe('web');
    expect(rawParam(query({}), 'name')).toBeUndefined();
  });

  it('sees only own properties, so Object.prototype members are absent parameters', () => {
    for (const name of ['valueOf', 'toString', 'constructor', '__proto__', 'hasOwnProperty'])
      expect(rawParam({}, name)).toBeUndefined();
  });

  it('refuses a repeated or bracketed parameter with a 400 naming it', () => {
    const repeated = refusal(() => rawParam(query({ name: ['a', 'b'] }), 'name'));
    expect(repeated.code).toBe(400);
    expect(repeated.message).toBe('query parameter "name" may be given only once');
    expect(repeated.details?.causes?.[0]?.field).toBe('name');
    expect(refusal(() => rawParam(query({ name: { x: 'a' } }), 'name')).message).toBe(
      'query parameter "name" must be a single value',
    );
  });

  it('checks a value, echoing it escaped and cut short in the message', () => {
    const problemOf = (value: string) => (value === 'ok' ? undefined : 'must be ok');
    expect(checkedParam(query({ mode: 'ok' }), 'mode', problemOf)).toBe('ok');
    expect(refusal(() => checkedParam(query({ mode: 'a\u0000b' }), 'mode', problemOf)).message).toBe(
      'query parameter "mode" must be ok (got "a\\u0000b")',
    );
    expect(refusal(() => oneOfParam(query({ format: 'xml' }), 'format', ['json', 'csv'])).message).toBe(
      'query parameter "format" must be one of json, csv (got "xml")',
    );
    expect(oneOfParam(query({ format: 'csv' }), 'format', ['json', 'csv'])).toBe('csv');
  });
});
