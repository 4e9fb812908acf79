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
  'door',
  'sources',
  'auditId',
  'kubeUser',
  'kubeGroups',
  'impersonator',
  'fieldManager',
  'generation',
] as const satisfies readonly (keyof ChangeItem)[];

/** Columns stored as JSON text: parsed in items, written back as JSON text in CSV. */
export const JSON_COLUMNS: ReadonlySet<string> = new Set([
  'actions',
  'specBefore',
  'specAfter',
  'sources',
  'kubeGroups',
]);

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

export function reconcileItem({ chainSeq: _seq, hash: _hash, ...row }: ReconcileRecord): ReconcileItem {
  return {
    ...row,
    startedAt: row.startedAt.toISOString(),
    finishedAt: row.finishedAt.toISOString(),
    result: row.result as ReconcileItem['result'],
    actions: actionsOf(parseJsonColumn(row.actions)),
  };
}

/**
 * One change from its first record and the records that complete it (oldest first): the first record's fields,
 * with what it lacks taken from the others — the identity kube-apiserver saw, the field manager, the specs — and,
 * when the first record did not know who made the change (the informer's), the actor, verb and door of the first
 * record that does.
 */
export function changeItem(row: ChangeRecord, completions: readonly ChangeRecord[] = []): ChangeItem {
  const knowing = row.door === 'unknown' ? completions.find((each) => each.door !== 'unknown') : undefined;
  const first = <Key extends keyof ChangeRecord>(key: Key): ChangeRecord[Key] =>
    row[key] ?? completions.find((each) => each[key] !== null)?.[key] ?? row[key];
  const {
    completes: _completes,
    joinKey: _joinKey,
    dedupeKey: _dedupeKey,
    source,
    kubeGroups: _groups,
    // The hash chain is the database's own integrity check (audit:verify), not part of a change.
    chainSeq: _seq,
    hash: _hash,
    ...fields
  } = row;
  const groups = first('kubeGroups');
  return {
    ...fields,
    at: row.at.toISOString(),
    actor: knowing?.actor ?? row.actor,
    role: row.role || null,
    verb: knowing?.verb ?? row.verb,
    door: (knowing?.door ?? row.door) as ChangeItem['door'],
    sources: [source, ...completions.map((each) => each.source)],
    specBefore: parseJsonColumn(first('specBefore')),
    specAfter: parseJsonColumn(first('specAfter')),
    auditId: first('auditId'),
    kubeUser: first('kubeUser'),
    kubeGroups: groupsOf(groups),
    impersonator: first('impersonator'),
    fieldManager: first('fieldManager'),
    generation: first('generation'),
    uid: first('uid'),
    resourceVersion: first('resourceVersion'),
  };
}

function groupsOf(text: string | null): string[] | null {
  const parsed = parseJsonColumn(text);
  return Array.isArray(parsed) ? parsed.filter((group): group is string => typeof group === 'string') : null;
}

export function noopItem(row: ReconcileNoop): NoopItem {
  return { ...row, lastAt: row.lastAt.toISOString() };
}
