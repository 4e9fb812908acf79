import { describe, expect, it } from 'vitest';
import { StatusException } from './kube-status.js';
import { BODY_TYPES, MAX_BODY_DEPTH, nestedDeeperThan, parseBody } from './request-body.js';

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('parseBody nesting', () => {
  it('takes kube-apiserver’s deepest nesting and refuses one level more, as 400', () => {
    expect(parseBody(Buffer.from(nested(MAX_BODY_DEPTH)), BODY_TYPES.json, [BODY_TYPES.json])).toBeInstanceOf(
      Array,
    );
    let refusal: unknown;
    try {
      parseBody(Buffer.from(nested(MAX_BODY_DEPTH + 1)), BODY_TYPES.json, [BODY_TYPES.json]);
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(StatusException);
    expect((refusal as StatusException).message).toContain(`exceeded max depth of ${MAX_BODY_DEPTH}`);
  });

  it('refuses deep YAML and deep objects too, without recursing', () => {
    expect(() =>
      parseBody(Buffer.from(`spec:\n  x: ${nested(20_000)}\n`), BODY_TYPES.yaml, [BODY_TYPES.yaml]),
    ).toThrow(StatusException);
    const deep = `${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`;
    expect(() => parseBody(Buffer.from(deep), BODY_TYPES.mergePatch, [BODY_TYPES.mergePatch])).toThrow(
      'exceeded max depth',
    );
  });

  it('counts depth from the outermost object', () => {
    expect(nestedDeeperThan(1, 0)).toBe(false);
    expect(nestedDeeperThan({}, 1)).toBe(false);
    expect(nestedDeeperThan({ a: {} }, 1)).toBe(true);
    expect(nestedDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
  });
});
