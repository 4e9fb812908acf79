import type {
  ChangeRecord,
  ReconcileNoop,
  ReconcileRecord,
  RefusalCount,
} from '../../generated/prisma-sqlite/index.js';
import type { ChangeSource } from './change-record.js';

/**
 * Audit rows as the read endpoints answer them: times as RFC 3339 strings and JSON columns parsed back, the same
 * shape in a JSON list, an NDJSON line and (JSON columns as JSON text) a CSV row.
 */

import {
  AUTHENTICATED_BY,
  type AuthenticatedBy,
  type ChangeItem,
  type NoopItem,
  type ReconcileItem,
} from '@ngx/nginx-api';

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
  // Added later: at the end, so the earlier columns keep their places for readers that go by position.
  'actorEmail',
  'actorGroups',
  'authenticatedBy',
  'kubeActor',
] as const satisfies readonly (keyof ChangeItem)[];

/** Columns stored as JSON text: parsed in items, written back as JSON text in CSV. */
export const JSON_COLUMNS: ReadonlySet<string> = new Set([
  'actions',
  'specBefore',
  'specAfter',
  'sources',
  'kubeGroups',
  'actorGroups',
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
 * with what it lacks taken from the others — the identity kube-apiserver saw (so a write the control plane made
 * as the person shows both: our caller, and the user and impersonator of kube-apiserver's record), the field
 * manager, the specs — and, when the first record did not know who made the change (the informer's), the actor,
 * the person, the verb and the door of the first record that does.
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
    actorEmail: _email,
    actorGroups: _actorGroups,
    authenticatedBy: _authenticatedBy,
    // The hash chain is the database's own integrity check (audit:verify), not part of a change.
    chainSeq: _seq,
    hash: _hash,
    ...fields
  } = row;
  const groups = first('kubeGroups');
  const person = knowing ?? row;
  const kubes = [row, ...completions].find((each) => KUBE_AUDIT_SOURCES.has(each.source));
  return {
    ...fields,
    at: row.at.toISOString(),
    actor: person.actor,
    role: row.role || null,
    actorEmail: person.actorEmail,
    actorGroups: groupsOf(person.actorGroups),
    authenticatedBy: authenticatedByOf(person.authenticatedBy),
    verb: knowing?.verb ?? row.verb,
    door: (knowing?.door ?? row.door) as ChangeItem['door'],
    sources: [source, ...completions.map((each) => each.source)],
    specBefore: parseJsonColumn(first('specBefore')),
    specAfter: parseJsonColumn(first('specAfter')),
    auditId: first('auditId'),
    kubeUser: first('kubeUser'),
    kubeGroups: groupsOf(groups),
    impersonator: first('impersonator'),
    kubeActor: kubes?.actor || null,
    fieldManager: first('fieldManager'),
    generation: first('generation'),
    uid: first('uid'),
    resourceVersion: first('resourceVersion'),
  };
}

/** The sources that are kube-apiserver's audit of a write (its record names who it acted as). */
const KUBE_AUDIT_SOURCES: ReadonlySet<string> = new Set([
  'audit-webhook',
  'audit-log',
] satisfies ChangeSource[]);

/** A stored way of signing in, or null for none (or one this version does not know). */
function authenticatedByOf(text: string | null): AuthenticatedBy | null {
  return (AUTHENTICATED_BY as readonly (string | null)[]).includes(text) ? (text as AuthenticatedBy) : null;
}

function groupsOf(text: string | null): string[] | null {
  const parsed = parseJsonColumn(text);
  return Array.isArray(parsed) ? parsed.filter((group): group is string => typeof group === 'string') : null;
}

export function noopItem(row: ReconcileNoop): NoopItem {
  return { ...row, lastAt: row.lastAt.toISOString() };
}

/** Refused requests of one minute window and key, as `GET /controlplane/v1/audit/refusals` answers them. */
export interface RefusalItem {
  id: number;
  windowStart: string;
  door: string;
  code: number;
  reason: string;
  /** Empty when unknown (a 401). */
  subject: string;
  /** "(overflow)": refusals past the window's bound on distinct keys, whatever their subject and address. */
  address: string;
  count: number;
  firstAt: string;
  lastAt: string;
  message: string;
}

export function refusalItem(row: RefusalCount): RefusalItem {
  return {
    ...row,
    windowStart: row.windowStart.toISOString(),
    firstAt: row.firstAt.toISOString(),
    lastAt: row.lastAt.toISOString(),
  };
}
