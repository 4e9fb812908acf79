import type { Nginx, NginxSpec } from '@ngx/nginx-api';
import { joinKeys, type ChangeRecordRow } from '../audit/change-record.js';
import type { LastWriter } from '../kube/last-writer.js';

/** A change of an Nginx the informer saw: a new object, a new generation (its spec changed), or a delete. */
export interface ObservedChange {
  kind: 'create' | 'update' | 'delete';
  namespace: string;
  name: string;
  uid: string;
  /** The resourceVersion the write left (for a delete, the last one seen). */
  resourceVersion: string;
  generation: number | null;
  specBefore: NginxSpec | undefined;
  specAfter: NginxSpec | undefined;
  /** The newest managedFields entry: the field manager and operation of the write (not for a delete). */
  writer: LastWriter | undefined;
}

type Observed = Pick<Nginx, 'metadata' | 'spec'>;

/** The informer's add of an object it did not list at start. */
export function observedCreate(object: Observed, writer: LastWriter | undefined): ObservedChange | undefined {
  return observed('create', object, undefined, object.spec, writer);
}

/** The informer's update: a change only when the generation moved (the spec changed). */
export function observedUpdate(
  previous: Observed,
  current: Observed,
  writer: LastWriter | undefined,
): ObservedChange | undefined {
  const before = previous.metadata?.generation ?? 0;
  const after = current.metadata?.generation ?? 0;
  if (after <= before || previous.metadata?.uid !== current.metadata?.uid) return undefined;
  return observed('update', current, previous.spec, current.spec, writer);
}

export function observedDelete(object: Observed): ObservedChange | undefined {
  return observed('delete', object, object.spec, undefined, undefined);
}

function observed(
  kind: ObservedChange['kind'],
  object: Observed,
  specBefore: NginxSpec | undefined,
  specAfter: NginxSpec | undefined,
  writer: LastWriter | undefined,
): ObservedChange | undefined {
  const { namespace, name, uid, resourceVersion, generation } = object.metadata ?? {};
  if (!namespace || !name || !uid || !resourceVersion) return undefined;
  return {
    kind,
    namespace,
    name,
    uid,
    resourceVersion,
    generation: generation ?? null,
    specBefore,
    specAfter,
    writer,
  };
}

/**
 * The change record of a write only the informer saw (no audit event, no record of ours came for it): its door
 * and actor unknown, its verb as far as managedFields tell (`apply` for an Apply entry, else `update`: an update
 * and a patch leave the same entry), the field manager, the spec before and after, and the keys a late audit event
 * completes it by (`write:<uid>@<resourceVersion>`, or `deleted:<uid>`) and it is stored once by.
 */
export function observedChangeRow(change: ObservedChange, at: Date): ChangeRecordRow {
  const key =
    change.kind === 'delete'
      ? joinKeys.deleted(change.uid)
      : joinKeys.write(change.uid, change.resourceVersion);
  const verb =
    change.kind === 'update' ? (change.writer?.operation === 'Apply' ? 'apply' : 'update') : change.kind;
  return {
    at,
    actor: '',
    role: '',
    verb,
    namespace: change.namespace,
    name: change.name,
    subresource: null,
    patchType: null,
    specBefore: change.specBefore === undefined ? null : JSON.stringify(change.specBefore),
    specAfter: change.specAfter === undefined ? null : JSON.stringify(change.specAfter),
    code: 200,
    reason: null,
    message: null,
    uid: change.uid,
    resourceVersion: change.kind === 'delete' ? null : change.resourceVersion,
    userAgent: null,
    door: 'unknown',
    source: 'informer',
    fieldManager: change.writer?.manager ?? null,
    generation: change.kind === 'delete' ? null : change.generation,
    joinKey: key,
    dedupeKey: `observed:${key}`,
  };
}
