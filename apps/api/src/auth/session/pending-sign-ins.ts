import { createHash, randomBytes } from 'node:crypto';

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

/**
 * Sign-ins under way, by their `state`. Each is bound to the browser that started it (the digest of a random
 * value sent to that browser alone in a cookie) and taken once: a replayed state, one of another browser, or
 * one older than ten minutes finds nothing.
 */
export class PendingSignIns {
  private readonly pending = new Map<string, { signIn: PendingSignIn; browser: string; until: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Keeps `signIn` under `state`; answers the value for the browser's binding cookie. */
  add(state: string, signIn: PendingSignIn): string {
    const now = this.now();
    for (const [k, entry] of this.pending) if (entry.until <= now) this.pending.delete(k);
    if (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    const browser = randomBytes(24).toString('base64url');
    this.pending.set(state, { signIn, browser: digest(browser), until: now + TTL_MS });
    return browser;
  }

  /** The sign-in of `state` started by the browser holding `browser`, taken out (so never twice). */
  take(state: string, browser: string | undefined): PendingSignIn | 'unknown' | 'other-browser' {
    const entry = this.pending.get(state);
    if (!entry || entry.until <= this.now()) return 'unknown';
    if (!browser || digest(browser) !== entry.browser) return 'other-browser';
    this.pending.delete(state);
    return entry.signIn;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest('base64url');
