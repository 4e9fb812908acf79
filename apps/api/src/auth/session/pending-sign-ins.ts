import { randomBytes } from 'node:crypto';
import { digestOf, seal, unseal } from './session-crypto.js';
import type { PendingSignInRecords } from './session-records.js';

/** What a sign-in under way must be finished with: the PKCE verifier, the nonce and where to go after. */
export interface PendingSignIn {
  codeVerifier: string;
  nonce: string;
  /** A path on this site. */
  next: string;
  /** The redirect_uri the authorization request named (the token request must name it again). */
  redirectUri: string;
}

/** How long a sign-in may take at the provider. */
const TTL_MS = 10 * 60_000;
const MAX_PENDING = 10_000;
/** How often a replica sweeps expired sign-ins (at most; on a new sign-in). */
const SWEEP_EVERY_MS = 60_000;
/** The key purpose the verifier and nonce are sealed for (session-crypto.ts). */
const SECRETS = 'sign-in secrets';

/**
 * Sign-ins under way, by their `state`, kept in the audit database through PendingSignInRecords so the provider's
 * callback may reach any API replica. Each is bound to the browser that started it (a random value sent to that
 * browser alone in a cookie: the database keeps its digest, and the PKCE verifier and nonce sealed under it) and
 * taken once: a replayed state, one of another browser, or one older than ten minutes finds nothing. Both methods
 * reject with SessionStorageUnavailableError when the storage cannot be reached.
 */
export class PendingSignIns {
  private lastSweep = 0;

  constructor(
    private readonly records: PendingSignInRecords,
    private readonly now: () => number = Date.now,
  ) {}

  /** Keeps `signIn` under `state`; answers the value for the browser's binding cookie. */
  async add(state: string, signIn: PendingSignIn): Promise<string> {
    const now = this.now();
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      await this.records.sweep(now, MAX_PENDING - 1);
    }
    const browser = randomBytes(24).toString('base64url');
    const { codeVerifier, nonce, next, redirectUri } = signIn;
    await this.records.insert(digestOf(state), {
      browserDigest: digestOf(browser),
      sealed: seal(browser, SECRETS, { codeVerifier, nonce }),
      next,
      redirectUri,
      expiresAt: now + TTL_MS,
    });
    return browser;
  }

  /** The sign-in of `state` started by the browser holding `browser`, taken out (so never twice). */
  async take(
    state: string,
    browser: string | undefined,
  ): Promise<PendingSignIn | 'unknown' | 'other-browser'> {
    const row = await this.records.take(digestOf(state), browser && digestOf(browser), this.now());
    if (typeof row === 'string') return row;
    const secrets = unseal<{ codeVerifier: string; nonce: string }>(browser!, SECRETS, row.sealed);
    return { ...secrets, next: row.next, redirectUri: row.redirectUri };
  }
}
