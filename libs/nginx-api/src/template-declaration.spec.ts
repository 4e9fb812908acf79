import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { structural } from './schema-kinds.js';
import { template, templateRowOf } from './template-declaration.js';

describe('template(…)', () => {
  const declared = Type.Integer({ minimum: 0, description: 'Seconds.' });
  const row = { example: 30, inputs: ['grace'], section: 'container' } as const;

  it('marks a declaration with its row, through Type.Optional, and leaves the declaration as it was', () => {
    const marked = Type.Optional(template(declared, row));
    expect(templateRowOf(marked)).toBe(row);
    expect(templateRowOf(declared)).toBeUndefined();
  });

  it('puts nothing of the row in the structural schema', () => {
    const spec = Type.Object({ grace: Type.Optional(template(declared, row)) });
    expect(structural(spec)).toEqual(structural(Type.Object({ grace: Type.Optional(declared) })));
    expect(JSON.stringify(structural(spec))).not.toContain('example');
  });
});
