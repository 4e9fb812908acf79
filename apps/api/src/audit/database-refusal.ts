import { storableText } from './storable-row.js';

/**
 * Tells a write the database refused for its data (retrying the same rows can never succeed) from one it could not
 * take now (unreachable, timed out, busy or locked, misconfigured, out of space: retrying later can). Read from the
 * errors Prisma 6 gives with its driver adapters:
 * - `DriverAdapterError` whose `cause` holds the driver's code (`code` for PostgreSQL errors the adapter does not
 *   map, `originalCode` for those it does);
 * - `PrismaClientKnownRequestError` with a Prisma code (`P2020`), or the driver's code itself for SQLite errors the
 *   adapter does not map (`SQLITE_CONSTRAINT_CHECK`), and the driver's error in `meta.driverAdapterError.cause`;
 * - `PrismaClientValidationError`: the client refused a value before sending anything.
 * Anything not recognised counts as the database being away: a row is dropped only for a known refusal, never
 * because of an outage.
 */

/** PostgreSQL SQLSTATE classes of refused data: data exception, integrity constraint, program limit (index entry too large). */
const REFUSING_SQLSTATE_CLASSES: ReadonlySet<string> = new Set(['22', '23', '54']);

/** SQLite primary result codes of refused data (extended codes such as SQLITE_CONSTRAINT_CHECK start with them). */
const REFUSING_SQLITE_CODES: ReadonlySet<string> = new Set([
  'SQLITE_CONSTRAINT',
  'SQLITE_MISMATCH',
  'SQLITE_TOOBIG',
]);

/** Prisma's known request errors for refused values and constraints. */
const REFUSING_PRISMA_CODES: ReadonlySet<string> = new Set([
  'P2000', // value too long for the column
  'P2002', // unique constraint
  'P2003', // foreign key constraint (SQLite's adapter also reports a trigger's RAISE as one)
  'P2004', // constraint failed
  'P2005', // invalid value stored
  'P2006', // invalid value provided
  'P2007', // data validation error
  'P2011', // null constraint
  'P2012', // missing required value
  'P2019', // input error
  'P2020', // value out of range for the type
  'P2033', // number does not fit a 64-bit integer
]);

/** Longest reason kept, in bytes: enough for a code and the database's one-line message. */
const REASON_MAX_BYTES = 200;

/**
 * Why the database refused the written data (`23514 new row for relation … violates check constraint …`): the
 * code and the database's one-line message, without the rows (PostgreSQL's `detail` and Prisma's echo of the
 * query arguments are left out). Undefined when the error is not a refusal.
 */
export function refusalReason(error: unknown): string | undefined {
  if (!isObject(error)) return undefined;
  if (error.name === 'PrismaClientValidationError') return reason('invalid value', lastLine(error.message));
  const cause = driverCause(error);
  const codes = [error.code, cause?.originalCode, cause?.code].filter((code) => typeof code === 'string');
  const refusing = codes.find(isRefusingCode);
  if (refusing === undefined) return undefined;
  const message = [cause?.originalMessage, cause?.message].find((text) => typeof text === 'string');
  return reason(refusing, message ?? lastLine(error.message));
}

function isRefusingCode(code: string): boolean {
  if (/^P\d{4}$/.test(code)) return REFUSING_PRISMA_CODES.has(code);
  if (/^[0-9A-Z]{5}$/.test(code)) return REFUSING_SQLSTATE_CLASSES.has(code.slice(0, 2));
  const primary = /^SQLITE_[A-Z]+/.exec(code)?.[0];
  return primary !== undefined && REFUSING_SQLITE_CODES.has(primary);
}

/** The driver's error behind a Prisma error, if it carries one. */
function driverCause(error: Record<string, unknown>): Record<string, unknown> | undefined {
  if (error.name === 'DriverAdapterError' && isObject(error.cause)) return error.cause;
  const meta = error.meta;
  const adapterError = isObject(meta) ? meta.driverAdapterError : undefined;
  return isObject(adapterError) && isObject(adapterError.cause) ? adapterError.cause : undefined;
}

/** Prisma puts its message last, after the call site and the arguments it was given. */
function lastLine(message: unknown): string {
  if (typeof message !== 'string') return '';
  const lines = message.split('\n').filter((line) => line.trim() !== '');
  return lines.at(-1)?.trim() ?? '';
}

function reason(code: string, message: string): string {
  return storableText(message ? `${code} ${message}` : code, REASON_MAX_BYTES);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
