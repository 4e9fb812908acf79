import { describe, expect, it } from 'vitest';
import { headerRegexProblem } from './header-regex.js';

describe('headerRegexProblem', () => {
  it('takes RE2 expressions', () => {
    for (const ok of [
      '^beta$',
      'a|b',
      '[a-z]+',
      '\\(literal\\)',
      '(?i)beta',
      '(?i:a)b',
      'v\\d+\\.\\d+',
      '\\\\1',
    ])
      expect(headerRegexProblem(ok), ok).toBeUndefined();
  });

  it('names why one does not compile', () => {
    expect(headerRegexProblem('(')).toMatch(/Unterminated group/);
    expect(headerRegexProblem('[z-a]')).toMatch(/Range out of order/);
    expect(headerRegexProblem('*x')).toMatch(/Nothing to repeat/);
  });

  it('refuses what RE2 does not take', () => {
    expect(headerRegexProblem('a(?=b)')).toBe('lookaround assertions are not supported (RE2 syntax)');
    expect(headerRegexProblem('(?<!a)b')).toBe('lookaround assertions are not supported (RE2 syntax)');
    expect(headerRegexProblem('(a)\\1')).toBe('backreferences are not supported (RE2 syntax)');
  });
});
