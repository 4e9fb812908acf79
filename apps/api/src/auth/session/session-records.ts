import type { Identity } from '../identity.js';

/** A stored browser session as every replica reads it (times in ms since the epoch). */
export interface SessionRow {
  identity: Identity;
  /** The session's tokens, sealed under its id (session-crypto.ts). */
  sealedTokens: string;
  expiresAt: number;
  /** When the ID token expires: the identity must be confirmed with the provider again after it. */
  recheckAt: number;
}

/** The database could not be asked (unreachable, timed out): the caller answers 503 and ends no session for it. */
export class SessionStorageUnavailableError extends Error {
  override readonly name = 'SessionStorageUnavailableError';
}

/**
 * Where browser sessions live, shared by every API replica (implemented over the audit database in audit/). Rows
 * are found by the digest of the session id. Every method rejects with SessionStorageUnavailableError when the
 * storage cannot be reached, and with nothing else.
 */
export abstract class SessionRecords {
  abstract insert(idDigest: string, row: SessionRow & { createdAt: number }): Promise<void>;

  /** The session, while it has not expired at `now`. */
  abstract find(idDigest: string, now: number): Promise<SessionRow | undefined>;

  /**
   * Claims the renewal of a session whose ID token has expired at `now`, until `until`: true for exactly one caller
   * of any replica while a claim holds (one refresh-token grant per renewal), false for the others and for a
   * session already renewed or gone.
   */
  abstract claimRenewal(idDigest: string, now: number, until: number): Promise<boolean>;

  /** Ends a claimed renewal: the new identity and tokens, and when to ask again (the claim is released). */
  abstract saveRenewal(idDigest: string, renewed: Omit<SessionRow, 'expiresAt'>): Promise<void>;

  /** Ends a claimed renewal that could not reach the provider: ask again at `recheckAt` (the claim is released). */
  abstract postponeRenewal(idDigest: string, recheckAt: number): Promise<void>;

  /** Removes the session; answers it if it was there (signed out on every replica from now on). */
  abstract remove(idDigest: string): Promise<SessionRow | undefined>;

  /** Which of `idDigests` name sessions live at `now`. */
  abstract live(idDigests: readonly string[], now: number): Promise<Set<string>>;

  /** Removes sessions expired at `now`, then the oldest beyond `keep`; answers how many went. */
  abstract sweep(now: number, keep: number): Promise<number>;
}

/** A stored sign-in under way (its verifier and nonce sealed under the browser's sign-in cookie). */
export interface PendingSignInRow {
  browserDigest: string;
  sealed: string;
  next: string;
  redirectUri: string;
  expiresAt: number;
}

/**
 * Where sign-ins under way live, shared by every API replica (the callback may reach another one than the
 * sign-in). Rejects with SessionStorageUnavailableError when the storage cannot be reached.
 */
export abstract class PendingSignInRecords {
  abstract insert(stateDigest: string, row: PendingSignInRow): Promise<void>;

  /**
   * Takes the sign-in of `stateDigest` out, once, when it is live at `now` and `browserDigest` started it: its row;
   * 'other-browser' (left in place) when another browser started it; 'unknown' when there is none (expired, taken,
   * never made).
   */
  abstract take(
    stateDigest: string,
    browserDigest: string | undefined,
    now: number,
  ): Promise<PendingSignInRow | 'unknown' | 'other-browser'>;

  /** Removes sign-ins expired at `now`, then the oldest beyond `keep`. */
  abstract sweep(now: number, keep: number): Promise<number>;
}
