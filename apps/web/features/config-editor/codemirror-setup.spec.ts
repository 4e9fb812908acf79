import { Text } from '@codemirror/state';
import { describe, expect, it } from 'vitest';
import { diagnosticsOf } from './codemirror-setup';

const doc = Text.of(['server {', '  listen 80', '}']);

describe('diagnosticsOf', () => {
  it('covers the whole line of each problem', () => {
    expect(diagnosticsOf(doc, [{ line: 2, message: 'unexpected "}"' }])).toEqual([
      { from: 9, to: 20, severity: 'error', message: 'unexpected "}"' },
    ]);
  });

  it('keeps lines inside the document', () => {
    const [past, before] = diagnosticsOf(doc, [
      { line: 7, message: 'end of file' },
      { line: 0, message: 'first' },
    ]);
    expect([past.from, past.to]).toEqual([21, 22]);
    expect([before.from, before.to]).toEqual([0, 8]);
  });

  it('is empty without problems', () => {
    expect(diagnosticsOf(doc, [])).toEqual([]);
  });
});
