import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  conditionError,
  conditionMet,
  MAX_CONDITION_DEPTH,
  MAX_CONDITION_LENGTH,
  parseCondition,
} from './analysis-condition.js';

const met = (text: string, result: number) => conditionMet(parseCondition(text), result);

describe('conditionMet', () => {
  it.each([
    ['result < 0.01', 0.001, true],
    ['result < 0.01', 0.05, false],
    ['result <= 1', 1, true],
    ['result > 1', 1, false],
    ['result >= 1', 1, true],
    ['result == 0', 0, true],
    ['result != 0', 0, false],
    ['0.5 > result', 0.2, true],
    ['result < 1e-2', 0.001, true],
    ['result < 2.5E+3', 2000, true],
    ['result > .5', 0.6, true],
    ['result > -1', -0.5, true],
    ['result > --1', 0, false],
    ['-result < 0', 1, true],
    ['result > 0 && result < 1', 0.5, true],
    ['result > 0 && result < 1', 1.5, false],
    ['result < 0 || result > 1', 1.5, true],
    ['result < 0 || result > 1 && result < 2', 3, false],
    ['(result < 0 || result > 1) && result < 2', 1.5, true],
    ['!(result < 1)', 2, true],
    ['!!(result < 1)', 0, true],
    ['(result) < (1)', 0, true],
    ['((result < 1))', 0, true],
    ['  result\t<\n1  ', 0, true],
    ['result < 1', Infinity, false],
    ['result > 1', Infinity, true],
  ])('%s with result %d is %s', (text, result, expected) => {
    expect(met(text, result)).toBe(expected);
  });

  it('fails every condition on NaN unless the condition asks isNaN', () => {
    for (const text of ['result < 1', 'result != 0', '!(result < 1)', 'result == result'])
      expect(met(text, NaN), text).toBe(false);
    expect(met('isNaN(result)', NaN)).toBe(true);
    expect(met('isNaN(result)', 0)).toBe(false);
    expect(met('isNaN(result) || result < 0.01', NaN)).toBe(true);
    expect(met('!isNaN(result) && result < 0.01', NaN)).toBe(false);
    expect(met('!isNaN(result) && result < 0.01', 0.001)).toBe(true);
  });
});

describe('conditionError', () => {
  it('accepts every condition the grammar allows', () => {
    for (const text of ['result < 0.01', 'isNaN(result)', '!(result >= 3) || result == 0', '1 < 2'])
      expect(conditionError(text), text).toBeUndefined();
  });

  it.each([
    ['', /empty/],
    ['   ', /empty/],
    ['result', /must compare result.*found a number at position 1/],
    ['0.5', /must compare result/],
    ['result < ', /expected result, a number.*found end of condition/],
    ['< 1', /expected result, a number.*found "<" at position 1/],
    ['result < 0.01)', /unbalanced "\)"/],
    ['(result < 0.01', /expected "\)", found end of condition/],
    ['((result < 1)', /expected "\)"/],
    ['errors < 0.01', /unknown identifier "errors" at position 1/],
    ['result < 0.01 && constructor', /unknown identifier "constructor"/],
    ['process.exit(1)', /unexpected "." at position 8/],
    ['constructor(1) < 2', /unknown identifier "constructor"/],
    ['result = 1', /unexpected "=" at position 8/],
    ['result & 1', /unexpected "&"/],
    ['result < 1; 2', /unexpected ";"/],
    ['result < "1"', /unexpected "\\""/],
    ['result < 1.2.3', /malformed number at position 10/],
    ['result < 2x', /malformed number/],
    ['result < 1e', /malformed number/],
    ['0 < result < 1', /comparisons do not chain .*join them with &&/],
    ['result < 1 2', /expected "&&", "\|\|" or end of condition, found "2"/],
    ['!result', /! negates a condition, found a number/],
    ['!result < 1', /! negates a condition/],
    ['-(result < 1) < 0', /- negates a number, found a condition/],
    ['(result < 1) < 2', /< compares numbers, found a condition/],
    ['result && result < 1', /&& joins conditions, found a number at position 1/],
    ['result < 1 || 2', /\|\| joins conditions, found a number at position 15/],
    ['isNaN(result < 1)', /isNaN\(…\) takes a number/],
    ['isNaN result', /expected "\("/],
    ['isNaN', /expected "\(", found end of condition/],
    ['result <== 1', /unexpected "=" at position 10/],
    ['result < < 1', /expected result, a number.*found "<" at position 10/],
    ['résultat < 1', /unexpected "é"/],
  ])('refuses %j', (text, message) => {
    expect(conditionError(text)).toMatch(message);
  });

  it('refuses a very long or very deeply nested condition without overflowing the stack', () => {
    expect(conditionError(`result < ${'1'.repeat(MAX_CONDITION_LENGTH)}`)).toMatch(/longer than 1024/);
    expect(conditionError(`${'('.repeat(200)}result < 1${')'.repeat(200)}`)).toMatch(
      /nested more than 32 levels/,
    );
    expect(conditionError(`${'!'.repeat(MAX_CONDITION_DEPTH + 1)}(result < 1)`)).toMatch(/nested/);
    expect(conditionError(`${'-'.repeat(MAX_CONDITION_DEPTH + 1)}result < 1`)).toMatch(/nested/);
    const wide = Array.from({ length: 60 }, () => 'result < 1').join(' || ');
    expect(conditionError(wide)).toBeUndefined();
    expect(
      conditionError(`${'('.repeat(MAX_CONDITION_DEPTH - 1)}result < 1${')'.repeat(31)}`),
    ).toBeUndefined();
  });
});

describe('any text', () => {
  it('either parses and evaluates to a boolean, or is refused with a message — never anything else', () => {
    const piece = fc.constantFrom(
      'result',
      '0.01',
      '1e3',
      '<',
      '<=',
      '>',
      '==',
      '!=',
      '&&',
      '||',
      '!',
      '(',
      ')',
      '-',
      'isNaN',
      ' ',
      'x',
      '=',
      '.',
    );
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.array(piece, { maxLength: 40 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(text, fc.double(), (condition, result) => {
        const problem = conditionError(condition);
        if (problem === undefined) expect(typeof met(condition, result)).toBe('boolean');
        else expect(problem.length).toBeGreaterThan(0);
      }),
      { numRuns: 2000 },
    );
  });
});
