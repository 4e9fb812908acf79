import type { ChangeRecord, ReconcileNoop, ReconcileRecord } from '../../generated/prisma-sqlite/index.js';

/**
 * Audit rows as the read endpoints answer them: times as RFC 3339 strings and JSON columns parsed back, the same
 * shape in a JSON list, an NDJSON line and (JSON columns as JSON text) a CSV row.
 */

import type { ChangeItem, NoopItem, ReconcileItem } from '@ngx/nginx-api';

export type { ChangeItem, NoopItem, ReconcileItem };

/** CSV columns, in order (every field of an item). */
export const RECONCILE_COLUMNS = [
  'id',
  'startedAt',
  'finishedAt',
  'durationMs',
  'namespace',
  'name',
  'uid',
  'generation',
  'resourceVersion',
  'trigger',
  'desiredReplicas',
  'activeReplicas',
  'readyReplicas',
  'actions',
  'result',
  'error',
  'attempt',
  'instanceId',
] as const satisfies readonly (keyof ReconcileItem)[];

export const CHANGE_COLUMNS = [
  'id',
  'at',
  'actor',
  'role',
  'verb',
  'namespace',
  'name',
  'subresource',
  'patchType',
  'specBefore',
  'specAfter',
  'code',
  'reason',
  'message',
  'uid',
  'resourceVersion',
  'userAgent',
] as const satisfies readonly (keyof ChangeItem)[];

/** Columns stored as JSON text: parsed in items, written back as JSON text in CSV. */
export const JSON_COLUMNS: ReadonlySet<string> = new Set(['actions', 'specBefore', 'specAfter']);

/** A JSON column parsed; null stays null, and text that is not JSON is returned as it is rather than failing. */
export function parseJsonColumn(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The actions column as a list (a row written by hand with something else in it reads as none). */
function actionsOf(parsed: unknown): ReconcileItem['actions'] {
  return Array.isArray(parsed) ? (parsed as ReconcileItem['actions']) : [];
}

export function reconcileItem(row: ReconcileRecord): ReconcileItem {
  return {
    ...row,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt.toISOString(),
    result: row.result as ReconcileItem['result'],
    actions: actionsOf(parseJsonColumn(row.actions)),
  };
}

export function changeItem(row: ChangeRecord): ChangeItem {
  return {
    ...row,
    at: row.at.toISOString(),
    specBefore: parseJsonColumn(row.specBefore),
    specAfter: parseJsonColumn(row.specAfter),
  };
}

export function noopItem(row: ReconcileNoop): NoopItem {
  return { ...row, lastAt: row.lastAt.toISOString() };
}
