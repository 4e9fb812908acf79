import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { isTrue, kubeQuery } from './kube-query.js';

/** A query object as Express 5's parser makes it: no prototype, repeated keys as arrays. */
const request = (query: string) => {
  const parsed = Object.create(null) as Record<string, string | string[]>;
  for (const [name, value] of new URLSearchParams(query)) {
    const current = parsed[name];
    parsed[name] = current === undefined ? value : [...(Array.isArray(current) ? current : [current]), value];
  }
  return { query: parsed } as unknown as Request;
};

describe('kubeQuery', () => {
  it('keeps the parameters the API server takes and drops the rest', () => {
    expect(kubeQuery(request('labelSelector=a%3Db&limit=5&watch=true&pretty=1&extra=x'))).toEqual({
      labelSelector: 'a=b',
      limit: '5',
      watch: 'true',
      pretty: '1',
    });
  });

  it.each(['valueOf=1', '__proto__=1', 'constructor=1', 'toString=x', 'hasOwnProperty=1', '__proto__[x]=1'])(
    'ignores %s, a name Object.prototype knows, instead of failing',
    (query) => {
      const parsed = kubeQuery(request(query));
      expect(Object.keys(parsed)).toEqual([]);
      expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    },
  );

  it('answers 400 naming a parameter given twice or with a value it cannot take', () => {
    for (const query of [
      'limit=1&limit=2',
      'limit=-1',
      'watch=maybe',
      'resourceVersionMatch=Newest',
      'resourceVersion=qH!o',
    ]) {
      const error = (() => {
        try {
          kubeQuery(request(query));
        } catch (thrown) {
          return thrown;
        }
      })();
      expect(error).toBeInstanceOf(StatusException);
      expect((error as StatusException).code).toBe(400);
      expect((error as StatusException).details?.causes?.[0]?.field).toBe(query.split('=')[0]);
    }
  });
});

describe('isTrue', () => {
  it('reads a boolean parameter as the API server does: given, and neither false nor 0', () => {
    expect([isTrue('true'), isTrue('1'), isTrue(''), isTrue('TRUE')]).toEqual([true, true, true, true]);
    expect([isTrue('false'), isTrue('False'), isTrue('0'), isTrue(undefined)]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
