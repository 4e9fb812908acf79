/**
 * kube-apiserver's audit events (audit.k8s.io/v1 Event) as its webhook backend posts them (an EventList) and its
 * log backend writes them (one JSON event per line): the fields the audit trail reads, checked for their types.
 */

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
}

export interface AuditObjectRef {
  resource?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiGroup?: string;
  apiVersion?: string;
  resourceVersion?: string;
  subresource?: string;
}

export interface AuditEvent {
  level: string;
  auditID: string;
  stage: string;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  userAgent?: string;
  objectRef?: AuditObjectRef;
  responseStatus?: { code?: number; status?: string; reason?: string; message?: string };
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
}

/** An item of a batch that is no audit event: its position and what is wrong with it. */
export interface InvalidEvent {
  index: number;
  reason: string;
}

/** A batch read: the events that are well formed, and those that are not (which the caller counts as lost). */
export interface ParsedBatch {
  events: AuditEvent[];
  invalid: InvalidEvent[];
}

/** Why a document is no EventList at all (the whole batch is refused); undefined when it is one. */
export function eventListError(document: unknown): string | undefined {
  if (!isObject(document)) return 'the body is not a JSON object';
  if (document.kind !== 'EventList') return `kind must be EventList (got ${JSON.stringify(document.kind)})`;
  if (document.apiVersion !== 'audit.k8s.io/v1')
    return `apiVersion must be audit.k8s.io/v1 (got ${JSON.stringify(document.apiVersion)})`;
  if (!Array.isArray(document.items)) return 'items must be a list';
  return undefined;
}

/** The items of an EventList (checked by eventListError first), each checked on its own. */
export function parseEventList(document: { items: unknown[] }): ParsedBatch {
  const events: AuditEvent[] = [];
  const invalid: InvalidEvent[] = [];
  document.items.forEach((item, index) => {
    const reason = eventError(item);
    if (reason === undefined) events.push(item as AuditEvent);
    else invalid.push({ index, reason });
  });
  return { events, invalid };
}

/** Why an item is no usable audit event; undefined when it is one. */
export function eventError(item: unknown): string | undefined {
  if (!isObject(item)) return 'not an object';
  for (const field of ['auditID', 'stage', 'requestURI', 'verb', 'level'] as const)
    if (!nonEmptyString(item[field])) return `${field} must be a non-empty string`;
  for (const field of ['requestReceivedTimestamp', 'stageTimestamp'] as const)
    if (!isTimestamp(item[field])) return `${field} must be an RFC 3339 time`;
  const userProblem = userError(item.user, 'user');
  if (userProblem) return userProblem;
  if (item.impersonatedUser !== undefined && item.impersonatedUser !== null) {
    const problem = userError(item.impersonatedUser, 'impersonatedUser');
    if (problem) return problem;
  }
  if (item.userAgent !== undefined && typeof item.userAgent !== 'string') return 'userAgent must be a string';
  if (item.objectRef !== undefined) {
    if (!isObject(item.objectRef)) return 'objectRef must be an object';
    for (const [field, value] of Object.entries(item.objectRef))
      if (value !== undefined && typeof value !== 'string') return `objectRef.${field} must be a string`;
  }
  if (item.responseStatus !== undefined) {
    if (!isObject(item.responseStatus)) return 'responseStatus must be an object';
    const code = item.responseStatus.code;
    if (code !== undefined && !(Number.isInteger(code) && (code as number) >= 0 && (code as number) < 1000))
      return 'responseStatus.code must be an HTTP status';
    for (const field of ['status', 'reason', 'message'])
      if (item.responseStatus[field] !== undefined && typeof item.responseStatus[field] !== 'string')
        return `responseStatus.${field} must be a string`;
  }
  return undefined;
}

function userError(user: unknown, field: string): string | undefined {
  if (!isObject(user)) return `${field} must be an object`;
  if (typeof user.username !== 'string') return `${field}.username must be a string`;
  if (user.groups !== undefined && user.groups !== null) {
    if (!Array.isArray(user.groups) || !user.groups.every((group) => typeof group === 'string'))
      return `${field}.groups must be a list of strings`;
  }
  return undefined;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function isTimestamp(value: unknown): value is string {
  return typeof value === 'string' && RFC3339.test(value) && !Number.isNaN(Date.parse(value));
}

function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
