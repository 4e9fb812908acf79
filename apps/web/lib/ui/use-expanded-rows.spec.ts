import { describe, expect, it } from 'vitest';
import { toggled } from './use-expanded-rows';

describe('toggled', () => {
  it('opens a closed row and closes an open one, leaving the others and the given set as they are', () => {
    const open = new Set([1]);
    expect([...toggled(open, 2)]).toEqual([1, 2]);
    expect([...toggled(open, 1)]).toEqual([]);
    expect([...open]).toEqual([1]);
  });
});
