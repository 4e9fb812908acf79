import type { IntOrPercent } from './types.js';

const PERCENT = /^([0-9]+)%$/;

/**
 * The number `value` stands for out of `total`, as the Deployment controller reads maxSurge and maxUnavailable:
 * an integer is itself; `"N%"` is N% of `total`, rounded up or down as asked. Undefined for anything else
 * (the schema refuses it before it gets here).
 */
export function scaledValue(value: IntOrPercent, total: number, round: 'up' | 'down'): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  const match = PERCENT.exec(value);
  if (!match) return undefined;
  // Integer arithmetic: 10% of 30 is exactly 3, never 3.0000000000000004 rounded up to 4.
  const hundredths = Number(match[1]) * total;
  return round === 'up' ? Math.ceil(hundredths / 100) : Math.floor(hundredths / 100);
}

/** Whether the value is zero however it is written (`0`, `"0%"`). */
export function isZero(value: IntOrPercent | undefined): boolean {
  return value === 0 || value === '0%';
}
