import { TIMELINE_KINDS, type TimelineKind } from '@ngx/nginx-api';
import { decodeCursor, InvalidCursorError, type CursorPosition } from '../audit/audit-cursor.js';
import { compact, limitParam, timeWindow, type TimeWindow } from '../audit/audit-params.js';
import { printable } from '../http/path-params.js';
import { invalidParam, singleParam, type QueryParams } from '../http/query-params.js';
import { MAX_WATCH_SECONDS } from '../rest/relay-limits.js';

export interface TimelineFilters extends TimeWindow {
  namespace: string;
  name: string;
  /** Only entries of this Nginx object (a recreated Nginx of the same name has another uid). */
  uid?: string;
  /** Only these kinds; undefined: all. */
  kinds?: TimelineKind[];
}

/** Where a timeline page ended, in (time desc, source rank desc, id desc) order. */
export interface TimelinePosition {
  at: Date;
  rank: number;
  id: number;
}

/** The three stores a timeline reads, in the order entries of the same millisecond are listed (desc). */
export const SOURCE_RANKS = { change: 0, reconcile: 1, evidence: 2 } as const;
const RANKS = 3;

export interface TimelineParams {
  filters: TimelineFilters;
  limit: number;
  after?: TimelinePosition;
  /** `watch=true`: live entries instead of a page. */
  watch?: TimelineWatchParams;
}

export interface TimelineWatchParams {
  /** Where to start (a list's or a bookmark's `resourceVersion`); absent: from now. */
  from?: TimelineVersion;
  /** How long the watch stays open (`timeoutSeconds`, at most MAX_WATCH_SECONDS, which is the default too). */
  timeoutSeconds: number;
}

/** How far a watch has read each store: the last chain place seen (AuditChainHead). */
export interface TimelineVersion {
  changes: number;
  reconciles: number;
  timeline: number;
}

/** A TimelineVersion as a `resourceVersion`: the three stores' chain places, "<changes>.<reconciles>.<timeline>". */
export function encodeVersion(version: TimelineVersion): string {
  return `${version.changes}.${version.reconciles}.${version.timeline}`;
}

/**
 * `GET …/nginxes/{name}/timeline`: `since`, `until`, `kind` (comma-separated, of TIMELINE_KINDS), `uid`, `limit`
 * (1 to 500) and `continue`. A bad one is a 400 naming it.
 */
export function parseTimelineParams(query: QueryParams, namespace: string, name: string): TimelineParams {
  const filters = compact<TimelineFilters>({
    namespace,
    name,
    uid: uidParam(query),
    kinds: kindsParam(query),
    ...timeWindow(query),
  });
  const limit = limitParam(query);
  const token = singleParam(query, 'continue');
  const watch = watchParams(query);
  if (watch && token !== undefined) throw invalidParam('continue', 'is for pages, not with watch=true');
  if (watch) return { filters, limit, watch };
  if (token === undefined) return { filters, limit };
  try {
    return { filters, limit, after: fromCursor(decodeCursor(token, 'timeline', filters)) };
  } catch (error) {
    if (error instanceof InvalidCursorError) throw invalidParam('continue', error.message);
    throw error;
  }
}

/** A timeline position as an audit cursor position: its rank folded into the id. */
export function toCursor(position: TimelinePosition): CursorPosition {
  return { at: position.at, id: position.id * RANKS + position.rank };
}

function fromCursor(cursor: CursorPosition): TimelinePosition {
  return { at: cursor.at, rank: cursor.id % RANKS, id: Math.floor(cursor.id / RANKS) };
}

function kindsParam(query: QueryParams): TimelineKind[] | undefined {
  const value = singleParam(query, 'kind');
  if (value === undefined) return undefined;
  const kinds = value.split(',').map((kind) => kind.trim());
  const unknown = kinds.find((kind) => !(TIMELINE_KINDS as readonly string[]).includes(kind));
  if (unknown !== undefined)
    throw invalidParam(
      'kind',
      `must be a comma-separated list of ${TIMELINE_KINDS.join(', ')} (got "${printable(unknown)}")`,
    );
  return [...new Set(kinds as TimelineKind[])].sort();
}

function uidParam(query: QueryParams): string | undefined {
  const value = singleParam(query, 'uid');
  if (value === undefined) return undefined;
  if (/^[0-9a-f-]{1,64}$/i.test(value)) return value;
  throw invalidParam('uid', `must be an object uid (got "${printable(value)}")`);
}

function watchParams(query: QueryParams): TimelineWatchParams | undefined {
  const watch = singleParam(query, 'watch');
  if (watch === undefined || watch === 'false' || watch === '0') {
    for (const field of ['resourceVersion', 'timeoutSeconds'])
      if (singleParam(query, field) !== undefined) throw invalidParam(field, 'is for watch=true only');
    return undefined;
  }
  if (watch !== 'true' && watch !== '1')
    throw invalidParam('watch', `must be true or false (got "${printable(watch)}")`);
  const version = singleParam(query, 'resourceVersion');
  const seconds = singleParam(query, 'timeoutSeconds');
  if (seconds !== undefined && !/^[0-9]{1,9}$/.test(seconds))
    throw invalidParam('timeoutSeconds', `must be a whole number of seconds (got "${printable(seconds)}")`);
  const timeoutSeconds = Math.min(
    seconds === undefined ? MAX_WATCH_SECONDS : Number(seconds),
    MAX_WATCH_SECONDS,
  );
  if (version === undefined || version === '' || version === '0') return { timeoutSeconds };
  const match = /^([0-9]{1,9})\.([0-9]{1,9})\.([0-9]{1,9})$/.exec(version);
  if (!match)
    throw invalidParam(
      'resourceVersion',
      `must be a timeline list's or bookmark's metadata.resourceVersion (got "${printable(version)}")`,
    );
  return {
    timeoutSeconds,
    from: { changes: Number(match[1]), reconciles: Number(match[2]), timeline: Number(match[3]) },
  };
}
