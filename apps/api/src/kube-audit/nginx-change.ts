import { createHash } from 'node:crypto';
import { NGINX_GROUP, NGINX_KIND, NGINX_PLURAL, type NginxSpec } from '@ngx/nginx-api';
import {
  CHANGE_SUBRESOURCES,
  joinKeys,
  type ChangeRecordRow,
  type ChangeSource,
  type ChangeSubresource,
  type ChangeVerb,
} from '../audit/change-record.js';
import { auditIdOrigin } from '../audit/request-audit-id.js';
import { fieldManagerFor } from '../rest/field-manager.js';
import type { AuditEvent } from './audit-event.js';
import { isWatched } from '../config/watched-namespaces.js';

const WRITE_VERBS: ReadonlySet<string> = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
/** Stages after which the request's outcome is known. */
const FINAL_STAGES: ReadonlySet<string> = new Set(['ResponseComplete', 'Panic']);

export interface EventContext {
  source: Extract<ChangeSource, 'audit-webhook' | 'audit-log'>;
  /** The control plane's own user as kube-apiserver knows it; undefined while unknown. */
  self: string | undefined;
  /** Only changes in these namespaces are kept (the process watches no other); undefined: all. */
  watchNamespaces: readonly string[] | undefined;
  /**
   * The spec the Nginx `uid` had just before the write that left it at `resourceVersion`, as the informer saw
   * it; undefined when not known.
   */
  specBefore(uid: string, resourceVersion: string): NginxSpec | undefined;
  /** The spec the Nginx `uid` had when the informer saw it deleted; undefined when not known. */
  deletedSpec(uid: string): NginxSpec | undefined;
}

/**
 * The change records an audit event of kube-apiserver makes: one for a write of an Nginx (one per Nginx a
 * collection delete removed), none for anything else — reads, other resources, dry runs, events of a stage
 * before the answer, and the controller's own writes (recorded as reconciles). Who: `user.username`, or for an
 * impersonated request the impersonated user, with the impersonator kept. A write the control plane relayed
 * (its own user and an audit ID of its REST API) completes the control plane's record of it rather than making a
 * second change. Pure.
 */
export function nginxChanges(event: AuditEvent, context: EventContext): ChangeRecordRow[] {
  const ref = event.objectRef;
  if (ref?.apiGroup !== NGINX_GROUP || ref.resource !== NGINX_PLURAL) return [];
  if (!WRITE_VERBS.has(event.verb) || !FINAL_STAGES.has(event.stage) || isDryRun(event.requestURI)) return [];
  if (!isWatched(context.watchNamespaces, ref.namespace)) return [];
  const byControlPlane = context.self !== undefined && event.user.username === context.self;
  const origin = byControlPlane ? auditIdOrigin(event.auditID) : undefined;
  if (origin === 'controller') return [];

  const base = baseRow(event, context.source);
  if (origin === 'rest') {
    base.door = 'controlplane';
    base.completesKeys = [joinKeys.request(event.auditID)];
  }
  if (event.verb === 'deletecollection') {
    const items = deletedItems(event.responseObject);
    if (items.length === 0) return [];
    return items.map((item, index) => ({
      ...base,
      completesKeys: [
        ...(origin === 'rest' ? [joinKeys.requestItem(event.auditID, item.metadata?.name ?? '')] : []),
        ...(item.metadata?.uid ? [joinKeys.deleted(item.metadata.uid)] : []),
      ],
      joinKey: joinKeys.requestItem(event.auditID, item.metadata?.name ?? ''),
      name: item.metadata?.name ?? '',
      uid: item.metadata?.uid ?? null,
      specBefore: item.spec === undefined ? null : JSON.stringify(item.spec),
      dedupeKey: `${base.dedupeKey}#${index}`,
    }));
  }
  return [withObject(base, event, context)];
}

/** The fields every record of the event has, whatever the verb. */
function baseRow(event: AuditEvent, source: EventContext['source']): ChangeRecordRow {
  const status = event.responseStatus;
  const code = status?.code ?? 0;
  const ok = code >= 200 && code < 300;
  const impersonated = event.impersonatedUser ?? undefined;
  const actor = impersonated ?? event.user;
  const subresource = (CHANGE_SUBRESOURCES as readonly string[]).includes(event.objectRef?.subresource ?? '')
    ? (event.objectRef!.subresource as ChangeSubresource)
    : null;
  const query = queryOf(event.requestURI);
  return {
    at: new Date(event.stageTimestamp),
    actor: actor.username,
    role: '',
    verb: event.verb as ChangeVerb,
    namespace: event.objectRef?.namespace ?? '',
    name: event.objectRef?.name ?? '',
    subresource,
    patchType: null,
    specBefore: null,
    specAfter: null,
    code,
    reason: ok ? null : (status?.reason ?? null),
    message: ok ? null : (status?.message ?? null),
    uid: event.objectRef?.uid ?? null,
    resourceVersion: null,
    userAgent: event.userAgent?.slice(0, 256) ?? null,
    door: 'kube-apiserver',
    source,
    auditId: event.auditID,
    kubeUser: event.user.username,
    kubeGroups: JSON.stringify(actor.groups ?? []),
    impersonator: impersonated ? event.user.username : null,
    fieldManager:
      event.verb === 'delete'
        ? null
        : (fieldManagerFor(query.get('fieldManager') ?? undefined, event.userAgent, false) ?? null),
    generation: null,
    joinKey: joinKeys.request(event.auditID),
    dedupeKey: dedupeKey(event),
  };
}

/** The record of a write of one Nginx: what the answer says of the object, and the spec before it. */
function withObject(row: ChangeRecordRow, event: AuditEvent, context: EventContext): ChangeRecordRow {
  const ok = row.code >= 200 && row.code < 300;
  const object = asObject(event.responseObject);
  const metadata = object?.metadata;
  // A delete is answered the deleted object, or (for a custom resource deleted at once) a Status naming its uid.
  const uid = metadata?.uid ?? object?.details?.uid ?? row.uid;
  const resourceVersion = ok ? (metadata?.resourceVersion ?? null) : null;
  const before = uid && resourceVersion ? context.specBefore(uid, resourceVersion) : undefined;
  let specAfter: unknown = null;
  if (ok && event.verb !== 'delete' && object?.kind === NGINX_KIND && !row.subresource)
    specAfter = object.spec ?? null;
  else if (ok && row.subresource === 'scale' && before)
    specAfter = { ...before, replicas: (object?.spec as { replicas?: unknown } | undefined)?.replicas };
  const deletedSpec =
    event.verb !== 'delete' || !ok
      ? undefined
      : object?.kind === NGINX_KIND
        ? object.spec
        : uid
          ? context.deletedSpec(uid)
          : undefined;
  const verb = event.verb === 'patch' && isApply(event, object) ? 'apply' : row.verb;
  // A record the informer made of the same write (its audit event came late) is completed, not repeated.
  const sameWrite =
    !ok || !uid
      ? []
      : event.verb === 'delete'
        ? [joinKeys.deleted(uid)]
        : resourceVersion
          ? [joinKeys.write(uid, resourceVersion)]
          : [];
  const completesKeys = [...(row.completesKeys ?? []), ...sameWrite];
  return {
    ...row,
    ...(completesKeys.length > 0 && { completesKeys }),
    verb,
    name: row.name || (metadata?.name ?? ''),
    uid: uid ?? null,
    resourceVersion,
    generation: ok && typeof metadata?.generation === 'number' ? metadata.generation : null,
    specBefore: jsonOrNull(deletedSpec ?? before),
    specAfter: jsonOrNull(specAfter),
    fieldManager:
      verb === 'apply' ? (queryOf(event.requestURI).get('fieldManager') ?? null) : row.fieldManager,
  };
}

/**
 * Whether a patch was a server-side apply: the audit event does not keep the content type, so it is read from
 * what apply leaves behind, a managedFields entry of the request's field manager with operation Apply stamped at
 * the second the request came in (or later).
 */
function isApply(event: AuditEvent, object: ObjectLike | undefined): boolean {
  const manager = queryOf(event.requestURI).get('fieldManager');
  if (!manager) return false;
  const received = Math.floor(Date.parse(event.requestReceivedTimestamp) / 1000) * 1000;
  return (object?.metadata?.managedFields ?? []).some(
    (entry) =>
      entry.manager === manager &&
      entry.operation === 'Apply' &&
      typeof entry.time === 'string' &&
      Date.parse(entry.time) >= received,
  );
}

/**
 * What makes a record of this event unique whatever kube-apiserver sends again: its audit ID (which a client may
 * choose, so not alone), user, request and when it was received.
 */
export function dedupeKey(event: AuditEvent): string {
  const hash = createHash('sha256');
  for (const part of [
    event.auditID,
    event.user.username,
    event.verb,
    event.requestURI,
    event.requestReceivedTimestamp,
  ])
    hash.update(part).update('\0');
  return `kube:${hash.digest('base64url')}`;
}

interface ObjectLike {
  kind?: string;
  metadata?: {
    name?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    managedFields?: { manager?: string; operation?: string; time?: string }[];
  };
  spec?: unknown;
  /** A Status's. */
  details?: { uid?: string };
}

function asObject(value: unknown): ObjectLike | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as ObjectLike)
    : undefined;
}

function deletedItems(list: unknown): ObjectLike[] {
  const items = (asObject(list) as { items?: unknown } | undefined)?.items;
  return Array.isArray(items)
    ? items.map(asObject).filter((item): item is ObjectLike => item !== undefined)
    : [];
}

function queryOf(requestURI: string): URLSearchParams {
  try {
    return new URL(requestURI, 'http://audit.invalid').searchParams;
  } catch {
    return new URLSearchParams();
  }
}

export function isDryRun(requestURI: string): boolean {
  return queryOf(requestURI).getAll('dryRun').includes('All');
}

function jsonOrNull(value: unknown): string | null {
  return value === undefined || value === null ? null : JSON.stringify(value);
}
