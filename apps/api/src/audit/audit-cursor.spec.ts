import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, InvalidCursorError } from './audit-cursor.js';

const position = { at: new Date('2026-11-22T10:00:00.123Z'), id: 42 };
const filters = { namespace: 'default', result: 'error', since: new Date('2026-11-01T00:00:00Z') };
const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const payload = (token: string) =>
  JSON.parse(Buffer.from(token, 'base64url').toString()) as Record<string, unknown>;

describe('continue tokens', () => {
  it('round-trip the position of the last row, as URL-safe base64 JSON', () => {
    const token = encodeCursor('reconciles', filters, position);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(payload(token)).toMatchObject({ at: '2026-11-22T10:00:00.123Z', id: 42 });
    expect(decodeCursor(token, 'reconciles', filters)).toEqual(position);
  });

  it('depend on which filters were given, not on their order or on absent ones', () => {
    const token = encodeCursor('changes', { verb: 'patch', actor: 'alice' }, position);
    expect(decodeCursor(token, 'changes', { actor: 'alice', verb: 'patch', name: undefined })).toEqual(
      position,
    );
  });

  it('are refused for another list or other filters', () => {
    const token = encodeCursor('reconciles', filters, position);
    expect(() => decodeCursor(token, 'changes', filters)).toThrow(/does not belong to this query/);
    expect(() => decodeCursor(token, 'reconciles', { ...filters, result: 'success' })).toThrow(
      InvalidCursorError,
    );
    expect(() => decodeCursor(token, 'reconciles', { namespace: 'default' })).toThrow(InvalidCursorError);
  });

  it('are refused when their position was edited', () => {
    const token = encodeCursor('reconciles', filters, position);
    const edited = { ...payload(token), id: 41 };
    expect(() => decodeCursor(base64url(edited), 'reconciles', filters)).toThrow(/altered/);
    const moved = { ...payload(token), at: '2026-11-22T10:00:00.124Z' };
    expect(() => decodeCursor(base64url(moved), 'reconciles', filters)).toThrow(/altered/);
  });

  it('are refused when any character is changed', () => {
    const token = encodeCursor('reconciles', filters, position);
    for (let index = 0; index < token.length; index++) {
      const replacement = token[index] === 'A' ? 'B' : 'A';
      const tampered = token.slice(0, index) + replacement + token.slice(index + 1);
      expect(() => decodeCursor(tampered, 'reconciles', filters), `changed at ${index}`).toThrow(
        InvalidCursorError,
      );
    }
  });

  it('are refused with anything appended', () => {
    const token = encodeCursor('reconciles', filters, position);
    for (const suffix of ['A', 'x', 'AA', '=', '.sig'])
      expect(() => decodeCursor(token + suffix, 'reconciles', filters)).toThrow(InvalidCursorError);
  });

  it.each([
    ['empty', ''],
    ['not base64url', 'abc+/=='],
    ['not JSON', Buffer.from('hello').toString('base64url')],
    ['JSON null', base64url(null)],
    ['an array', base64url([1, 2])],
    ['a number', base64url(7)],
    ['an id as text', base64url({ at: '2026-11-22T10:00:00.000Z', id: '1', c: 'x' })],
    ['a fractional id', base64url({ at: '2026-11-22T10:00:00.000Z', id: 1.5, c: 'x' })],
    ['a zero id', base64url({ at: '2026-11-22T10:00:00.000Z', id: 0, c: 'x' })],
    ['an unsafe id', base64url({ at: '2026-11-22T10:00:00.000Z', id: 2 ** 60, c: 'x' })],
    ['a time without milliseconds', base64url({ at: '2026-11-22T10:00:00Z', id: 1, c: 'x' })],
    ['an impossible time', base64url({ at: '2026-02-30T10:00:00.000Z', id: 1, c: 'x' })],
    ['no check', base64url({ at: '2026-11-22T10:00:00.000Z', id: 1 })],
    ['an extra field', base64url({ at: '2026-11-22T10:00:00.000Z', id: 1, c: 'x', admin: true })],
    ['far too long', 'A'.repeat(10_000)],
  ])('are refused when %s', (_, token) => {
    expect(() => decodeCursor(token, 'reconciles', {})).toThrow(InvalidCursorError);
  });
});
