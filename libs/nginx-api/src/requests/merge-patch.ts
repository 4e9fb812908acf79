import { jsonEqual } from '../json-equal.js';

/** A JSON value's object form: a plain object, not null and not an array. */
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
