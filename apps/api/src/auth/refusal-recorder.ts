/** Where a refused request came in: the REST API (and the audit and revision routes), the UI's sign-in, the live gateway. */
export type RefusalDoor = 'rest' | 'sign-in' | 'live';

export const REFUSAL_DOORS = ['rest', 'sign-in', 'live'] as const satisfies readonly RefusalDoor[];

/** The statuses a refusal is answered with: 400 a malformed sign-in, 401, 403, 503 (the provider or cluster away). */
export type RefusalCode = 400 | 401 | 403 | 503;

export const REFUSAL_CODES = [400, 401, 403, 503] as const satisfies readonly RefusalCode[];

/**
 * Why, as a short fixed category (the message says the rest). A closed set, so the audit's aggregation keys stay
 * bounded by subject and address alone.
 */
export type RefusalReason =
  /** No credential at all (no bearer token, no session cookie). */
  | 'no-credential'
  /** A bearer token we do not take: unknown, expired, wrong audience or issuer, bad signature, … */
  | 'bad-token'
  /** A session cookie that names no live session (expired, ended, tampered). */
  | 'bad-session'
  /** A cookie-authenticated write or handshake from another site (Origin, Sec-Fetch-Site). */
  | 'cross-site'
  /** A cookie-authenticated write without its session's CSRF token. */
  | 'csrf'
  /** An identity the access policy grants nothing. */
  | 'no-grant'
  /** Our roles: the caller's role is not enough. */
  | 'role'
  /** Our roles: the caller is limited to other namespaces. */
  | 'namespace'
  /** AUTHORIZATION=kubernetes: the SubjectAccessReview said no. */
  | 'rbac-denied'
  /** AUTHORIZATION=kubernetes: kube-apiserver could not be asked. */
  | 'rbac-unavailable'
  /** A session cookie that could not be looked up: the shared session storage (the audit database) is away. */
  | 'session-storage-unavailable'
  /** Sign-in: a malformed callback or a `next` that is not a path on this site. */
  | 'bad-request'
  /** Sign-in: a state unknown, expired or already used (a replay). */
  | 'bad-state'
  /** Sign-in: the callback came to another browser than the one that started it. */
  | 'other-browser'
  /** Sign-in: the provider answered with an error, or its answer did not hold (nonce, ID token). */
  | 'provider-refused'
  /** Sign-in: the identity provider cannot be reached. */
  | 'provider-unavailable';

/**
 * One refused request, as its refusing place tells it. Guarantee asked of every caller: no field holds a token, a
 * cookie or an authorization code (the recorder also masks token-like text in `message`, as a second line).
 */
export interface Refusal {
  door: RefusalDoor;
  code: RefusalCode;
  reason: RefusalReason;
  /** Who was refused, when known (a 403's caller, an identity granted nothing); absent for a 401. */
  subject?: string;
  /** The client's address as the app sees it (request.ip, the handshake's address). */
  address: string | undefined;
  message: string;
}

/**
 * Records refused requests in the audit (audit/refusal-audit.ts implements it; the audit module provides it).
 * `record` only counts in memory: it never throws, never waits, and costs a request nothing when the audit
 * database is slow or away.
 */
export abstract class RefusalRecorder {
  abstract record(refusal: Refusal): void;
}
