import { describe, expect, it } from 'vitest';
import { fieldManagerFor } from './field-manager.js';

describe('fieldManagerFor', () => {
  it('keeps the manager the client named, as named (two managers of one caller stay two)', () => {
    expect(fieldManagerFor('a', 'kubectl/v1.36.3 (linux/amd64)', false)).toBe('a');
    expect(fieldManagerFor('b', 'kubectl/v1.36.3', true)).toBe('b');
  });

  it('takes the User-Agent up to its first slash when none is named, as the API server does', () => {
    expect(fieldManagerFor(undefined, 'kubectl/v1.36.3 (linux/amd64) kubernetes/abc', false)).toBe('kubectl');
    expect(fieldManagerFor('', 'OpenAPI-Generator/37.0.2/python', false)).toBe('OpenAPI-Generator');
    expect(fieldManagerFor(undefined, 'curl', false)).toBe('curl');
  });

  it('drops characters that are not printable and stops at 128 bytes', () => {
    expect(fieldManagerFor(undefined, 'my\u0000agent\u200b/1', false)).toBe('myagent');
    expect(fieldManagerFor(undefined, 'x'.repeat(200), false)).toBe('x'.repeat(128));
    expect(fieldManagerFor(undefined, `${'x'.repeat(127)}é`, false)).toBe('x'.repeat(127));
  });

  it('names none for an apply without one (the API server refuses it) or when there is nothing to take', () => {
    expect(fieldManagerFor(undefined, 'kubectl/v1.36.3', true)).toBeUndefined();
    expect(fieldManagerFor(undefined, undefined, false)).toBeUndefined();
    expect(fieldManagerFor(undefined, '/leading-slash', false)).toBeUndefined();
  });
});
