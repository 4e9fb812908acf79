import { CHANGE_VERBS, type ChangeVerb } from '@ngx/nginx-api';

export { CHANGE_VERBS, type ChangeVerb };

export const CHANGE_SUBRESOURCES = ['status', 'scale'] as const;
export type ChangeSubresource = (typeof CHANGE_SUBRESOURCES)[number];

/**
 * One write made through the REST API to an Nginx, whatever its outcome: one row of the audit trail (the
 * ChangeRecord model). `actor` is the token's name, never the token.
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
}
