import { describe, expect, it } from 'vitest';
import { formatTable } from './table.js';

describe('formatTable', () => {
  it('pads each column to its widest cell, three spaces apart, the last one not', () => {
    expect(
      formatTable(
        ['NAME', 'READY'],
        [
          ['web', '2/2'],
          ['a-longer-name', '10/10'],
        ],
      ),
    ).toBe('NAME            READY\nweb             2/2\na-longer-name   10/10');
  });
});
