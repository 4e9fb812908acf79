import { describe, expect, it } from 'vitest';
import { fieldMatcher, labelMatcher } from './selectors.js';

const meta = (labels: Record<string, string>, name = 'web', namespace = 'default') => ({
  labels,
  name,
  namespace,
});

describe('labelMatcher', () => {
  it.each([
    ['', { a: '1' }, true],
    ['team=web', { team: 'web' }, true],
    ['team==web', { team: 'web' }, true],
    ['team=web', { team: 'api' }, false],
    ['team!=web', { team: 'api' }, true],
    ['team!=web', {}, true],
    ['team', { team: '' }, true],
    ['!team', { team: 'x' }, false],
    ['!team', {}, true],
    ['tier in (a, b)', { tier: 'b' }, true],
    ['tier in (a,b)', { tier: 'c' }, false],
    ['tier notin (a,b)', {}, true],
    ['tier notin (a,b)', { tier: 'a' }, false],
    ['team=web,tier in (a,b),!legacy', { team: 'web', tier: 'a' }, true],
    ['mycompany.com/nginx=x', { 'mycompany.com/nginx': 'x' }, true],
  ])('%s on %j is %s', (selector, labels, expected) => {
    expect(labelMatcher(selector)(meta(labels))).toBe(expected);
  });

  it.each(['a in (b', 'a=b=c', '=b', 'a in b', 'bad key!=x', 'a=' + 'x'.repeat(64)])(
    'refuses %s with 400',
    (selector) => {
      expect(() => labelMatcher(selector)).toThrow(expect.objectContaining({ code: 400 }));
    },
  );
});

describe('fieldMatcher', () => {
  it('selects by metadata.name and metadata.namespace', () => {
    expect(fieldMatcher('metadata.name=web')(meta({}))).toBe(true);
    expect(fieldMatcher('metadata.name!=web')(meta({}))).toBe(false);
    expect(fieldMatcher('metadata.namespace==default,metadata.name=web')(meta({}))).toBe(true);
    expect(fieldMatcher('metadata.namespace=other')(meta({}))).toBe(false);
  });

  it('refuses other fields the way the API server does', () => {
    expect(() => fieldMatcher('spec.replicas=1')).toThrow(/field label not supported: spec.replicas/);
    expect(() => fieldMatcher('metadata.name')).toThrow(expect.objectContaining({ code: 400 }));
  });
});

describe('selectors and inherited property names', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'treat the label key %s like any other: absent unless the object has it',
    (key) => {
      expect(labelMatcher(key)(meta({}))).toBe(false);
      expect(labelMatcher(`!${key}`)(meta({}))).toBe(true);
      expect(labelMatcher(`${key} notin (x)`)(meta({}))).toBe(true);
      expect(labelMatcher(`${key} in (x)`)(meta({}))).toBe(false);
      expect(labelMatcher(`${key}=x`)(meta({}))).toBe(false);
      expect(labelMatcher(`${key}!=x`)(meta({}))).toBe(true);
      expect(labelMatcher(key)(meta(JSON.parse(`{"${key}": "x"}`) as Record<string, string>))).toBe(true);
    },
  );

  it('refuses __proto__ as a label key: it is not one', () => {
    expect(() => labelMatcher('__proto__')).toThrow(/invalid label key/);
  });

  it('refuses a field selector on an inherited name as an unsupported field', () => {
    for (const field of ['constructor', '__proto__', 'toString'])
      expect(() => fieldMatcher(`${field}=x`)).toThrow(/field label not supported/);
  });
});
