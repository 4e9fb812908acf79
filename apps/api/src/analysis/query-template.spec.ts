import { describe, expect, it } from 'vitest';
import { promqlStringEscape, renderQuery } from './query-template.js';

const target = { namespace: 'shop', name: 'web', revision: '7d9f8c6b5' };

describe('renderQuery', () => {
  it('replaces every placeholder, with or without spaces inside the braces', () => {
    expect(
      renderQuery(
        'sum(rate(x{nginx="{{name}}",namespace="{{ namespace }}",revision="{{revision}}"}[1m])) / sum(rate(x{nginx="{{name}}"}[1m]))',
        target,
      ),
    ).toEqual({
      query:
        'sum(rate(x{nginx="web",namespace="shop",revision="7d9f8c6b5"}[1m])) / sum(rate(x{nginx="web"}[1m]))',
    });
  });

  it('leaves a query without placeholders as written', () => {
    expect(renderQuery('vector(1)', target)).toEqual({ query: 'vector(1)' });
  });

  it('names the placeholders it does not know, once each', () => {
    expect(renderQuery('x{a="{{pod}}",b="{{ pod }}",c="{{}}",d="{{name}}"}', target)).toEqual({
      error: 'the query names {{pod}}, {{}}: only {{name}}, {{namespace}} and {{revision}} are replaced',
    });
  });

  it('keeps a hostile value inside its string literal', () => {
    const hostile = { ...target, name: 'web"} or vector(1) #\\\n\'`' };
    const { query } = renderQuery('x{nginx="{{name}}"}', hostile);
    expect(query).toBe('x{nginx="web\\"} or vector(1) #\\\\\\n\\\'\\x60"}');
    // Read back as a double-quoted literal: one string from the first quote to the last.
    const literal = /^x\{nginx="((?:[^"\\]|\\.)*)"\}$/.exec(query!);
    expect(literal).not.toBeNull();
  });
});

describe('promqlStringEscape', () => {
  it.each([
    ['abc-123', 'abc-123'],
    ['a"b', 'a\\"b'],
    ["a'b", "a\\'b"],
    ['a\\b', 'a\\\\b'],
    ['a\tb\rc\u0001', 'a\\tb\\rc\\x01'],
  ])('%j → %j', (value, escaped) => {
    expect(promqlStringEscape(value)).toBe(escaped);
  });
});
