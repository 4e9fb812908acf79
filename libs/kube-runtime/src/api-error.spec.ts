import { describe, expect, it } from 'vitest';
import {
  ignoreConflict,
  ignoreNotFound,
  isApiError,
  isConflict,
  isInvalid,
  isNotFound,
  isServerError,
  isTooManyRequests,
  KubeApiError,
} from './api-error.js';

const refusal = (code: number) => new KubeApiError(code, { kind: 'Status', code, reason: 'X' });

describe('API error idioms', () => {
  it('tells the API server’s refusals apart by code, and nothing else for one', () => {
    expect(isNotFound(refusal(404))).toBe(true);
    expect(isNotFound(refusal(409))).toBe(false);
    expect(isConflict(refusal(409))).toBe(true);
    expect(isInvalid(refusal(422))).toBe(true);
    expect(isApiError(refusal(503))).toBe(true);
    expect(isApiError(refusal(409), 404, 409)).toBe(true);
    expect(isApiError(refusal(410), 404, 409)).toBe(false);
    const lookalike = Object.assign(new Error('not found'), { code: 404 });
    expect(isNotFound(lookalike)).toBe(false);
    expect(isApiError('404')).toBe(false);
  });

  it('ignores only the refusal a catch wishes for, and throws anything else again', () => {
    expect(ignoreNotFound(refusal(404))).toBeUndefined();
    expect(() => ignoreNotFound(refusal(403))).toThrow(KubeApiError);
    const network = new TypeError('fetch failed');
    expect(() => ignoreNotFound(network)).toThrow(network);
    expect(ignoreConflict(refusal(409))).toBeUndefined();
    expect(() => ignoreConflict(refusal(404))).toThrow(KubeApiError);
  });

  it('tells a shed request (429) and a server failure (5xx) from the refusals that would be answered alike again', () => {
    expect(isTooManyRequests(refusal(429))).toBe(true);
    expect(isTooManyRequests(refusal(503))).toBe(false);
    expect(isServerError(refusal(500))).toBe(true);
    expect(isServerError(refusal(504))).toBe(true);
    expect(isServerError(refusal(429))).toBe(false);
    expect(isServerError(Object.assign(new Error('boom'), { code: 500 }))).toBe(false);
  });
});
