/**
 * Audit rows made storable in both databases' text columns. Rows carry text from callers (a refused create's
 * `metadata.name`, a User-Agent, an API server's message), and one value a database refuses must not cost the
 * trail anything else:
 * - PostgreSQL refuses NUL in text (SQLSTATE 22021); SQLite stores it.
 * - A lone UTF-16 surrogate is refused by Prisma's query compiler on both providers (the request's JSON does not
 *   parse); the pg driver alone would silently encode it as U+FFFD.
 * - A PostgreSQL btree index entry holds at most 2704 bytes: (namespace, name, at) and the no-op counts' key
 *   (namespace, name) must fit, so indexed text is kept to 1 KiB each. The schemas bound no column otherwise;
 *   the other caps keep one row from bloating the trail.
 */

/** Bounds in UTF-8 bytes: JSON documents (specs, actions), free text from the API server or the controller, the rest. */
export const JSON_TEXT_MAX_BYTES = 64 * 1024;
export const MESSAGE_MAX_BYTES = 4 * 1024;
export const TEXT_MAX_BYTES = 1024;

const MAX_BYTES_BY_FIELD: ReadonlyMap<string, number> = new Map([
  ['actions', JSON_TEXT_MAX_BYTES],
  ['specBefore', JSON_TEXT_MAX_BYTES],
  ['specAfter', JSON_TEXT_MAX_BYTES],
  ['message', MESSAGE_MAX_BYTES],
  ['error', MESSAGE_MAX_BYTES],
  ['kubeGroups', MESSAGE_MAX_BYTES],
  ['actorGroups', MESSAGE_MAX_BYTES],
]);

/** NUL, and UTF-16 surrogates not part of a pair (in `u` mode a pair is one code point, never `\p{Cs}`). */
// eslint-disable-next-line no-control-regex -- NUL is the character PostgreSQL refuses
const UNSTORABLE = /\u0000|\p{Cs}/gu;

const utf8 = new TextEncoder();

/**
 * The row with every string field storable: NUL and lone surrogates replaced by U+FFFD, then a value longer than
 * its field's bound cut at a character boundary and marked `…[cut from N bytes]` (so a cut JSON text no longer
 * parses and reads back as text). Other fields are kept. Pure: a new object, the input is not changed.
 */
export function storableRow<Row extends object>(row: Row): Row {
  const stored: Record<string, unknown> = { ...(row as Record<string, unknown>) };
  for (const [field, value] of Object.entries(row)) {
    const maxBytes = MAX_BYTES_BY_FIELD.get(field) ?? TEXT_MAX_BYTES;
    if (typeof value === 'string') stored[field] = storableText(value, maxBytes);
    else if (Array.isArray(value))
      stored[field] = value.map((item: unknown) =>
        typeof item === 'string' ? storableText(item, maxBytes) : item,
      );
  }
  return stored as Row;
}

/** `text` with NUL and lone surrogates replaced by U+FFFD, at most `maxBytes` UTF-8 bytes long (marker included). */
export function storableText(text: string, maxBytes: number): string {
  const clean = text.replace(UNSTORABLE, '\uFFFD');
  // A UTF-16 unit is at most 3 UTF-8 bytes (a pair is 4 for 2 units): short strings need no byte count.
  if (clean.length * 3 <= maxBytes) return clean;
  const bytes = Buffer.byteLength(clean, 'utf8');
  if (bytes <= maxBytes) return clean;
  let marker = `…[cut from ${bytes} bytes]`;
  if (Buffer.byteLength(marker, 'utf8') > maxBytes) marker = '';
  const room = maxBytes - Buffer.byteLength(marker, 'utf8');
  // encodeInto writes whole characters only, so `read` never ends inside a surrogate pair.
  const { read } = utf8.encodeInto(clean, new Uint8Array(room));
  return clean.slice(0, read) + marker;
}
