import { createHash } from 'node:crypto';

/** The audit lists that page with a cursor. */
export type AuditListKind = 'reconciles' | 'changes' | 'timeline' | 'refusals';

/** Where a page ended: the (time, id) of its last row, in (time desc, id desc) order. */
export interface CursorPosition {
  at: Date;
  id: number;
}

/** A `continue` token that is not one this server issued for this query. */
export class InvalidCursorError extends Error {
  override name = 'InvalidCursorError';
}

const MAX_TOKEN_LENGTH = 512;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A check over the list, the query's filters and the position, so a token that was altered, or is reused for a
 * different list or different filters, is refused instead of silently paging something else. It is a checksum,
 * not a signature: a token only says where to resume, which a caller may ask for with `until` anyway.
 */
function check(kind: AuditListKind, filters: object, at: string, id: number): string {
  const canonical = JSON.stringify([kind, canonicalFilters(filters), at, id]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

/** The filters as JSON with sorted keys; absent and undefined filters are the same query. */
function canonicalFilters(filters: object): string {
  const entries = Object.entries(filters).filter(([, value]) => value !== undefined);
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(Object.fromEntries(entries));
}

/** The opaque `continue` token for the page after `position`: base64url JSON `{ at, id, c }`. */
export function encodeCursor(kind: AuditListKind, filters: object, position: CursorPosition): string {
  const at = position.at.toISOString();
  const payload = { at, id: position.id, c: check(kind, filters, at, position.id) };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/** Reads a `continue` token issued by encodeCursor for the same list and filters; throws InvalidCursorError. */
export function decodeCursor(token: string, kind: AuditListKind, filters: object): CursorPosition {
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token))
    throw new InvalidCursorError('is not a continue token issued by this server');
  const bytes = Buffer.from(token, 'base64url');
  // Only the canonical encoding: base64 ignores stray trailing bits and characters, a token must not.
  if (bytes.toString('base64url') !== token)
    throw new InvalidCursorError('is not a continue token issued by this server');
  let payload: unknown;
  try {
    payload = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new InvalidCursorError('is not a continue token issued by this server');
  }
  const { at, id, c, ...rest } = (payload ?? {}) as Record<string, unknown>;
  const wellFormed =
    typeof payload === 'object' &&
    !Array.isArray(payload) &&
    Object.keys(rest).length === 0 &&
    typeof at === 'string' &&
    ISO_MS.test(at) &&
    !Number.isNaN(Date.parse(at)) &&
    new Date(at).toISOString() === at &&
    Number.isSafeInteger(id) &&
    (id as number) > 0 &&
    typeof c === 'string';
  if (!wellFormed) throw new InvalidCursorError('is not a continue token issued by this server');
  if (c !== check(kind, filters, at, id as number))
    throw new InvalidCursorError(
      'does not belong to this query: it was altered, or the filters or the list have changed since it was issued',
    );
  return { at: new Date(at), id: id as number };
}
