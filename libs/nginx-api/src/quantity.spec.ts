import { describe, expect, it } from 'vitest';
import { quantityValue } from './quantity.js';

describe('quantityValue', () => {
  it('reads plain, decimal-SI, binary-SI and exponent quantities', () => {
    expect(quantityValue('10')).toBe(10);
    expect(quantityValue('500m')).toBe(0.5);
    expect(quantityValue('1.5Gi')).toBe(1.5 * 2 ** 30);
    expect(quantityValue('2k')).toBe(2000);
    expect(quantityValue('3e2')).toBe(300);
    expect(quantityValue('.5')).toBe(0.5);
    expect(quantityValue(' 64Mi ')).toBe(64 * 2 ** 20);
  });

  it('answers NaN for what is not a quantity, including inherited names', () => {
    for (const text of ['', 'abc', '1.2.3', '5 Gi', '5gi', '1__proto__', 'constructor', 'Ki'])
      expect(quantityValue(text)).toBeNaN();
  });
});
