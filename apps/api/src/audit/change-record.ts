import { CHANGE_VERBS, type ChangeDoor, type ChangeVerb } from '@ngx/nginx-api';
import type { ChangePerson } from './change-person.js';

export { CHANGE_VERBS, type ChangeVerb };

export const CHANGE_SUBRESOURCES = ['status', 'scale'] as const;
export type ChangeSubresource = (typeof CHANGE_SUBRESOURCES)[number];

/** How a write came in (the type the API answers with): controlplane, kube-apiserver, or unknown (informer only). */
export type { ChangeDoor };

/** What recorded a change: the control plane's API, kube-apiserver's audit (webhook or log file), the informer. */
export const CHANGE_SOURCES = ['controlplane', 'audit-webhook', 'audit-log', 'informer'] as const;
export type ChangeSource = (typeof CHANGE_SOURCES)[number];

/**
 * One record of a write to an Nginx, whatever its outcome: one row of the audit trail (the ChangeRecord model).
 * `actor` is the token's name (never the token), the person's username, or the user kube-apiserver names. The
 * fields after `userAgent` are optional for the control-plane door (the schema's defaults apply).
 */
export interface ChangeRecordRow {
  at: Date;
  actor: string;
  role: string;
  verb: ChangeVerb;
  namespace: string;
  name: string;
  subresource: ChangeSubresource | null;
  /** Media type of a patch or apply body; null for other verbs. */
  patchType: string | null;
  /** The spec as JSON text before the write (null on create or when unknown). */
  specBefore: string | null;
  /** The spec as JSON text after the write (null on delete or when the write failed). */
  specAfter: string | null;
  /** HTTP status the API server, or the control plane itself, answered. */
  code: number;
  /** The failure's Status reason and message; null on success. */
  reason: string | null;
  message: string | null;
  uid: string | null;
  /** resourceVersion after the write. */
  resourceVersion: string | null;
  userAgent: string | null;
  /** The person behind `actor` for the control-plane door (changePerson); absent or null for the other doors. */
  actorEmail?: ChangePerson['actorEmail'];
  actorGroups?: ChangePerson['actorGroups'];
  authenticatedBy?: ChangePerson['authenticatedBy'] | null;
  door?: ChangeDoor;
  source?: ChangeSource;
  /** kube-apiserver's audit ID of the request. */
  auditId?: string | null;
  /** The user kube-apiserver saw, and their groups as a JSON array. */
  kubeUser?: string | null;
  kubeGroups?: string | null;
  /** Who impersonated `actor`. */
  impersonator?: string | null;
  fieldManager?: string | null;
  /** metadata.generation after the write. */
  generation?: number | null;
  /** What a later record of the same write finds this one by (see joinKeys). */
  joinKey?: string | null;
  /** The earlier record of the same write this one completes; set by the sink from completesKeys. */
  completes?: number | null;
  /** Stored once: a row whose key is stored already is skipped (a retried audit batch). */
  dedupeKey?: string | null;
  /**
   * Not a column: the join keys of an earlier record of the same write. The sink stores the id of the first
   * stored record (oldest) with one of these keys that completes nothing itself as this row's `completes`.
   */
  completesKeys?: readonly string[];
}

/** The join keys a change record is found by: the request it was made with, the generation it produced. */
export const joinKeys = {
  request: (auditId: string) => `request:${auditId}`,
  /** One Nginx of a collection delete (one request, a record per Nginx). */
  requestItem: (auditId: string, name: string) => `request:${auditId}/${name}`,
  /** The write that left the Nginx `uid` at `resourceVersion` (an audit event's answer, the informer's event). */
  write: (uid: string, resourceVersion: string) => `write:${uid}@${resourceVersion}`,
  /** The delete of the Nginx `uid`. */
  deleted: (uid: string) => `deleted:${uid}`,
};
