import { printable } from './path-params.js';
import { StatusException } from './kube-status.js';

/**
 * Express's parsed query string: repeated keys arrive as arrays, bracketed keys possibly as objects. Read it
 * with the functions below only: they look at own properties, so `?valueOf=1` or `?__proto__=1` is a parameter
 * like any other, never a member of Object.prototype.
 */
export type QueryParams = Record<string, unknown>;

/** A 400 `Status` naming the query parameter that is wrong, in `details.causes[0].field`. */
export function invalidParam(field: string, detail: string): StatusException {
  const message = `query parameter "${field}" ${detail}`;
  return new StatusException(400, message, { causes: [{ reason: 'FieldValueInvalid', field, message }] });
}

/**
 * The one value of a query parameter as sent (possibly empty), or undefined when absent. A repeated parameter
 * (`?name=a&name=b`) or a bracketed one (`?name[x]=a`) is refused rather than guessed at.
 */
export function rawParam(query: QueryParams, field: string): string | undefined {
  const value = Object.hasOwn(query, field) ? query[field] : undefined;
  if (value === undefined || typeof value === 'string') return value;
  if (Array.isArray(value)) throw invalidParam(field, 'may be given only once');
  throw invalidParam(field, 'must be a single value');
}

/** Like `rawParam`, but an empty value (as a blank form field sends it) counts as absent. */
export function singleParam(query: QueryParams, field: string): string | undefined {
  const value = rawParam(query, field);
  return value === '' ? undefined : value;
}

/** A non-empty parameter that `problemOf` finds nothing wrong with (it answers why not, or undefined), or 400. */
export function checkedParam(
  query: QueryParams,
  field: string,
  problemOf: (value: string) => string | undefined,
): string | undefined {
  const value = singleParam(query, field);
  const problem = value === undefined ? undefined : problemOf(value);
  if (problem === undefined) return value;
  throw invalidParam(field, `${problem} (got "${printable(value!)}")`);
}

/** A non-empty parameter that must be one of `allowed`, or 400 listing them. */
export function oneOfParam<T extends string>(
  query: QueryParams,
  field: string,
  allowed: readonly T[],
): T | undefined {
  return checkedParam(query, field, (value) =>
    (allowed as readonly string[]).includes(value) ? undefined : `must be one of ${allowed.join(', ')}`,
  ) as T | undefined;
}
