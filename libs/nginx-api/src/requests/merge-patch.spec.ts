import { describe, expect, it } from 'vitest';
import { mergePatch } from './merge-patch.js';

/** RFC 7386's MergePatch, to check that applying our patch gives `after` back. */
function apply(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = apply(result[key], value);
  }
  return result;
}

describe('mergePatch', () => {
  it('is empty when nothing differs, whatever the key order', () => {
    expect(mergePatch({ a: 1, b: { c: [1, 2], d: 'x' } }, { b: { d: 'x', c: [1, 2] }, a: 1 })).toEqual({});
  });

  it('sets changed values, nulls removed keys and recurses into objects', () => {
    const before = {
      replicas: 3,
      image: 'nginx:1.28',
      config: 'server {}',
      resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '128Mi' } },
    };
    const after = { replicas: 3, image: 'nginx:1.27', port: 8080, resources: { requests: { cpu: '100m' } } };
    const patch = mergePatch(before, after);
    expect(patch).toEqual({
      image: 'nginx:1.27',
      port: 8080,
      config: null,
      resources: { requests: { cpu: '100m', memory: null }, limits: null },
    });
    expect(apply(before, patch)).toEqual(after);
  });

  it('replaces arrays and values whose type changed whole, and copies what it puts in', () => {
    const after = { list: [1, { x: 1 }], swapped: { now: 'object' } };
    const patch = mergePatch({ list: [1], swapped: 'text' }, after);
    expect(patch).toEqual(after);
    (patch.swapped as { now: string }).now = 'changed';
    expect(after.swapped.now).toBe('object');
  });

  it('treats undefined values as absent keys', () => {
    expect(mergePatch({ a: undefined, b: 1 }, { a: undefined, b: 1, c: undefined })).toEqual({});
    expect(mergePatch({ a: 1 }, { a: undefined })).toEqual({ a: null });
  });
});
