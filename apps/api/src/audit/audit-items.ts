import type { ChangeRecord, ReconcileNoop, ReconcileRecord } from '../../generated/prisma-sqlite/index.js';

/**
 * Audit rows as the read endpoints answer them: times as RFC 3339 strings and JSON columns parsed back, the same
 * shape in a JSON list, an NDJSON line and (JSON columns as JSON text) a CSV row.
 */

export interface ReconcileItem {
  id: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  namespace: string;
  name: string;
  uid: string | null;
  generation: number | null;
  resourceVersion: string | null;
  trigger: string;
  desiredReplicas: number | null;
  activeReplicas: number | null;
  readyReplicas: number | null;
  actions: unknown;
  result: string;
  error: string | null;
  attempt: number;
  instanceId: string;
}

export interface ChangeItem {
  id: number;
  at: string;
  actor: string;
  role: string;
  verb: string;
  namespace: string;
  name: string;
  subresource: string | null;
  patchType: string | null;
  specBefore: unknown;
  specAfter: unknown;
  code: number;
  reason: string | null;
  message: string | null;
  uid: string | null;
  resourceVersion: string | null;
  userAgent: string | null;
}

export interface NoopItem {
  namespace: string;
  name: string;
  count: number;
  lastAt: string;
}

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

export function reconcileItem(row: ReconcileRecord): ReconcileItem {
  return {
    ...row,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt.toISOString(),
    actions: parseJsonColumn(row.actions),
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
