import { randomUUID } from 'node:crypto';

/**
 * The Audit-ID the control plane sends with its own requests to kube-apiserver, which keeps it as the request's
 * audit ID: so an audit event of a write the control plane relayed for a user is joined to the change record it
 * made (by `request:<id>`), and one of the controller's own writes is told apart from a person's. The prefixes
 * are trusted only on events whose user is the control plane's own identity.
 */
const PREFIXES = { rest: 'ngx-rest-', controller: 'ngx-ctrl-' } as const;

export type AuditIdOrigin = keyof typeof PREFIXES;

/** A new audit ID for a write relayed through the REST API. */
export function restAuditId(): string {
  return PREFIXES.rest + randomUUID();
}

/** A new audit ID for a request of the controller's own. */
export function controllerAuditId(): string {
  return PREFIXES.controller + randomUUID();
}

/** Which of the control plane's requests an audit ID names; undefined for anyone else's. */
export function auditIdOrigin(auditId: string): AuditIdOrigin | undefined {
  if (auditId.startsWith(PREFIXES.rest)) return 'rest';
  if (auditId.startsWith(PREFIXES.controller)) return 'controller';
  return undefined;
}
