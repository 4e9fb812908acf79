import { describe, expect, it } from 'vitest';
import { canonicalJson, jsonEqual } from './json-equal.js';

describe('jsonEqual', () => {
  it('compares objects whatever their keys order, at every depth', () => {
    expect(jsonEqual({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 })).toBe(true);
    expect(jsonEqual({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
  });

  it('compares arrays in order', () => {
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual([1], [1, 1])).toBe(false);
  });

  it('takes a key holding undefined as missing, but not one holding null', () => {
    expect(jsonEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(jsonEqual({ a: 1 }, { a: 1, b: null })).toBe(false);
  });

  it('tells undefined, null, an empty object and values of other types apart', () => {
    expect(jsonEqual(undefined, undefined)).toBe(true);
    expect(jsonEqual(undefined, {})).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
    expect(jsonEqual([], {})).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves undefined keys out', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: undefined, e: null })).toBe(
      '{"b":[{"c":2,"d":1}],"e":null}',
    );
  });

  it('is equal exactly for values jsonEqual takes as equal', () => {
    const pairs: [unknown, unknown][] = [
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      [
        [1, 2],
        [2, 1],
      ],
      [{ a: 1 }, { a: 1, b: undefined }],
      [{ a: 1 }, { a: 1, b: null }],
    ];
    for (const [a, b] of pairs) expect(canonicalJson(a) === canonicalJson(b)).toBe(jsonEqual(a, b));
  });
});
