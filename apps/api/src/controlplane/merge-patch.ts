/** A JSON value's object form: a plain object, not null and not an array. */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether two JSON values are equal (objects by their own keys, in any order; arrays element by element). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a).filter((key) => a[key] !== undefined);
  const otherKeys = Object.keys(b).filter((key) => b[key] !== undefined);
  return (
    keys.length === otherKeys.length &&
    keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  );
}

/**
 * The JSON merge patch (RFC 7386) that turns the object `before` into `after`: each changed key with its new
 * value, each removed key as null, objects patched key by key and anything else (arrays included) replaced
 * whole. Empty when nothing differs. Keys whose value is undefined count as absent, as in JSON.
 */
export function mergePatch(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before))
    if (before[key] !== undefined && (!Object.hasOwn(after, key) || after[key] === undefined))
      patch[key] = null;
  for (const key of Object.keys(after)) {
    const next = after[key];
    if (next === undefined) continue;
    const previous = Object.hasOwn(before, key) ? before[key] : undefined;
    if (isObject(previous) && isObject(next)) {
      const inner = mergePatch(previous, next);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else if (!jsonEqual(previous, next)) patch[key] = structuredClone(next);
  }
  return patch;
}
