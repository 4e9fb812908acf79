import { namespaceError, objectNameError } from '@ngx/nginx-api';
import { printable } from '../http/path-params.js';
import {
  checkedParam,
  invalidParam,
  oneOfParam,
  singleParam,
  type QueryParams,
} from '../http/query-params.js';
import { decodeCursor, InvalidCursorError, type AuditListKind, type CursorPosition } from './audit-cursor.js';
import { CHANGE_VERBS, type ChangeVerb } from './change-record.js';
import type { ReconcileOutcome } from './reconcile-record.js';
import {
  REFUSAL_CODES,
  REFUSAL_DOORS,
  type RefusalCode,
  type RefusalDoor,
} from '../auth/refusal-recorder.js';

/** How a list is answered: one JSON page, or every matching row as NDJSON or CSV. */
export const FORMATS = ['json', 'ndjson', 'csv'] as const;
export type AuditFormat = (typeof FORMATS)[number];

export const RECONCILE_RESULTS = [
  'success',
  'error',
  'requeued',
] as const satisfies readonly ReconcileOutcome[];
export const CHANGE_RESULTS = ['success', 'failure'] as const;
export type ChangeResult = (typeof CHANGE_RESULTS)[number];

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 500;

/** Time window shared by both lists: `since` inclusive, `until` exclusive. */
export interface TimeWindow {
  since?: Date;
  until?: Date;
}

export interface ReconcileFilters extends TimeWindow {
  namespace?: string;
  name?: string;
  result?: ReconcileOutcome;
}

export interface ChangeFilters extends TimeWindow {
  namespace?: string;
  name?: string;
  actor?: string;
  verb?: ChangeVerb;
  /** success: a 2xx code; failure: anything else. */
  result?: ChangeResult;
}

/** `since` finds counts with a refusal at or after it (lastAt), `until` counts with one before it (firstAt). */
export interface RefusalFilters extends TimeWindow {
  door?: RefusalDoor;
  code?: RefusalCode;
}

export interface NoopFilters {
  namespace?: string;
  name?: string;
}

/** A list request: filters, page size, where to resume, and the format to answer in. */
export interface ListParams<F> {
  filters: F;
  limit: number;
  after?: CursorPosition;
  format: AuditFormat;
}

export type { QueryParams };

/** `GET /controlplane/v1/audit/reconciles`: namespace, name, result, since, until, limit, continue, format. */
export function parseReconcileParams(query: QueryParams, accept?: string): ListParams<ReconcileFilters> {
  const filters = compact<ReconcileFilters>({
    namespace: checkedParam(query, 'namespace', namespaceError),
    name: checkedParam(query, 'name', objectNameError),
    result: oneOfParam(query, 'result', RECONCILE_RESULTS),
    ...timeWindow(query),
  });
  return listParams(query, accept, 'reconciles', filters);
}

/** `GET /controlplane/v1/audit/changes`: also actor and verb; result is success (2xx) or failure. */
export function parseChangeParams(query: QueryParams, accept?: string): ListParams<ChangeFilters> {
  const filters = compact<ChangeFilters>({
    namespace: checkedParam(query, 'namespace', namespaceError),
    name: checkedParam(query, 'name', objectNameError),
    actor: actorParam(query),
    verb: oneOfParam(query, 'verb', CHANGE_VERBS),
    result: oneOfParam(query, 'result', CHANGE_RESULTS),
    ...timeWindow(query),
  });
  return listParams(query, accept, 'changes', filters);
}

/** `GET /controlplane/v1/audit/noops`: namespace and name. */
export function parseNoopParams(query: QueryParams): NoopFilters {
  return compact<NoopFilters>({
    namespace: checkedParam(query, 'namespace', namespaceError),
    name: checkedParam(query, 'name', objectNameError),
  });
}

/**
 * `GET /controlplane/v1/audit/refusals`: door, code, since, until, limit, continue; JSON only. Refusals belong to
 * no namespace, so `namespace` is refused (400): the route needs the rights to read the whole cluster's audit,
 * and a namespace named in the query must not vouch for a caller limited to it (the guard reads that parameter).
 */
export function parseRefusalParams(query: QueryParams): ListParams<RefusalFilters> {
  if (Object.hasOwn(query, 'namespace'))
    throw invalidParam(
      'namespace',
      "is not taken: refusals belong to no namespace (this list is the cluster's)",
    );
  const code = oneOfParam(
    query,
    'code',
    REFUSAL_CODES.map((each) => String(each)),
  );
  const filters = compact<RefusalFilters>({
    door: oneOfParam(query, 'door', REFUSAL_DOORS),
    code: code === undefined ? undefined : (Number(code) as RefusalCode),
    ...timeWindow(query),
  });
  const params = listParams(query, undefined, 'refusals', filters);
  if (params.format !== 'json') throw invalidParam('format', 'must be json for this list');
  return params;
}

function listParams<F extends object>(
  query: QueryParams,
  accept: string | undefined,
  kind: AuditListKind,
  filters: F,
): ListParams<F> {
  const limit = limitParam(query);
  const token = singleParam(query, 'continue');
  let after: CursorPosition | undefined;
  if (token !== undefined) {
    try {
      after = decodeCursor(token, kind, filters);
    } catch (error) {
      if (error instanceof InvalidCursorError) throw invalidParam('continue', error.message);
      throw error;
    }
  }
  const format = oneOfParam(query, 'format', FORMATS) ?? formatFromAccept(accept);
  return { filters, limit, ...(after ? { after } : {}), format };
}

function actorParam(query: QueryParams): string | undefined {
  return checkedParam(query, 'actor', (value) =>
    // eslint-disable-next-line no-control-regex
    value.length <= 253 && !/[\u0000-\u001f\u007f]/.test(value)
      ? undefined
      : 'must be a token name of at most 253 printable characters',
  );
}

export function limitParam(query: QueryParams): number {
  const value = singleParam(query, 'limit');
  if (value === undefined) return DEFAULT_LIMIT;
  const limit = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  if (limit >= 1 && limit <= MAX_LIMIT) return limit;
  throw invalidParam('limit', `must be a whole number from 1 to ${MAX_LIMIT} (got "${printable(value)}")`);
}

export function timeWindow(query: QueryParams): TimeWindow {
  const since = timeParam(query, 'since');
  const until = timeParam(query, 'until');
  if (since && until && since > until)
    throw invalidParam('since', `must not be after until (${since.toISOString()} > ${until.toISOString()})`);
  return { since, until };
}

function timeParam(query: QueryParams, field: string): Date | undefined {
  const value = singleParam(query, field);
  if (value === undefined) return undefined;
  const time = parseRfc3339(value);
  if (time) return time;
  throw invalidParam(
    field,
    `must be an RFC 3339 time such as 2026-11-22T10:00:00Z (got "${printable(value)}")`,
  );
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/**
 * An RFC 3339 date-time (with `T`, seconds and an offset; up to nanoseconds), or undefined when it is not one or
 * names no real instant (February 30th, hour 24, a leap second). The audit trail keeps milliseconds, so finer
 * fractions round up to the next millisecond: `since` and `until` then still compare exactly as written.
 */
export function parseRfc3339(text: string): Date | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = (match[7] ?? '').padEnd(9, '0');
  const offsetHours = Number(match[9] ?? 0);
  const offsetMinutes = Number(match[10] ?? 0);
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !leap(year) ? 1 : 0);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const time = new Date(0);
  time.setUTCFullYear(year, month - 1, day);
  time.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3)));
  const offsetMs = (match[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const roundUp = Number(fraction.slice(3)) > 0 ? 1 : 0;
  return new Date(time.getTime() - offsetMs + roundUp);
}

function leap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/** The format an `Accept` header asks for when there is no `format` parameter (JSON unless it names another). */
export function formatFromAccept(accept: string | undefined): AuditFormat {
  for (const part of (accept ?? '').split(',')) {
    const [type = '', ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    if (parameters.some((parameter) => /^q=0(\.0*)?$/.test(parameter))) continue;
    if (type === 'application/x-ndjson') return 'ndjson';
    if (type === 'text/csv') return 'csv';
    if (type === 'application/json') return 'json';
  }
  return 'json';
}

/** The filters without the ones not given, so they compare (and fingerprint) by what was asked. */
export function compact<F extends object>(filters: { [K in keyof F]: F[K] | undefined }): F {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined)) as F;
}
