import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Identity } from '../identity.js';

/** What the provider's token endpoint gave for a session: its ID token and, if any, a refresh token. */
export interface SessionTokens {
  idToken: string;
  refreshToken?: string;
}

/** A session's identity as of its last confirmation by the provider, and until when that holds. */
export interface ConfirmedIdentity {
  identity: Identity;
  tokens: SessionTokens;
  /** When to ask the provider again (the ID token's `exp`), in ms since the epoch. */
  recheckAt: number;
}

/** The provider refused to renew a session (its refresh token was revoked or expired): the session ends. */
export class SessionRevokedError extends Error {
  override readonly name = 'SessionRevokedError';
}

/**
 * Renews a session's identity with its refresh token. Rejects with SessionRevokedError when the provider says
 * no, with anything else when it cannot be asked (then the session goes on as it is until it expires).
 */
export type Renew = (refreshToken: string) => Promise<ConfirmedIdentity>;

interface Session extends ConfirmedIdentity {
  csrfToken: string;
  expiresAt: number;
  /** A renewal under way: concurrent requests of the session wait for the same one. */
  renewing?: Promise<void>;
}

/** After the provider could not be reached, how long a session goes on before it is asked again. */
const RETRY_MS = 30_000;
/** Most sessions kept; past it the oldest are ended first. */
const MAX_SESSIONS = 50_000;

export type SessionAnswer = { identity: Identity } | { refused: string };

/**
 * Browser sessions, in this process's memory (a restart signs everyone out). A session is found by a random
 * 256-bit id (the cookie's value; only its digest is kept, as the key); it lasts `maxAgeMs` from sign-in
 * whatever happens, and its identity is confirmed with the provider whenever its ID token expires (renewed with
 * the refresh token): a refresh token revoked at the provider ends the session then; a provider that cannot be
 * reached leaves the session working, asked again every 30 s, until it expires. Without a refresh token a
 * session ends with its ID token.
 */
export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly options: { maxAgeMs: number; renew?: Renew; now?: () => number }) {}

  /** A new session for `confirmed`: its id (for the cookie), its CSRF token and when it expires. */
  create(confirmed: ConfirmedIdentity): { id: string; csrfToken: string; expiresAt: number } {
    this.sweep();
    const id = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + this.options.maxAgeMs;
    this.sessions.set(key(id), { ...confirmed, csrfToken, expiresAt });
    return { id, csrfToken, expiresAt };
  }

  /**
   * The identity of a live session that needs no word from the provider now, without asking it (for the paths
   * that cannot wait); undefined for one whose ID token has expired (identify renews it).
   */
  peek(id: string): Identity | undefined {
    const session = this.live(id);
    return session && session.recheckAt > this.now() ? session.identity : undefined;
  }

  /** The identity of session `id`, confirmed with the provider first when its ID token has expired. */
  async identify(id: string): Promise<SessionAnswer> {
    const session = this.live(id);
    if (!session) return { refused: 'the session has expired or was signed out' };
    if (session.recheckAt > this.now()) return { identity: session.identity };
    if (!session.tokens.refreshToken || !this.options.renew) {
      this.sessions.delete(key(id));
      return { refused: 'the sign-in has expired' };
    }
    session.renewing ??= this.renew(id, session, session.tokens.refreshToken).finally(() => {
      session.renewing = undefined;
    });
    await session.renewing;
    const after = this.live(id);
    return after ? { identity: after.identity } : { refused: 'the identity provider ended the sign-in' };
  }

  /** Whether `token` is session `id`'s CSRF token (compared in constant time). */
  csrfMatches(id: string, token: string | undefined): boolean {
    const session = this.live(id);
    if (!session || !token) return false;
    const expected = Buffer.from(session.csrfToken);
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /** The session's CSRF token, its identity and expiry (for the UI), or undefined. */
  describe(id: string): { identity: Identity; csrfToken: string; expiresAt: number } | undefined {
    const session = this.live(id);
    return (
      session && { identity: session.identity, csrfToken: session.csrfToken, expiresAt: session.expiresAt }
    );
  }

  /** Ends session `id`; answers its tokens (for signing out at the provider), if it was live. */
  end(id: string): SessionTokens | undefined {
    const session = this.live(id);
    this.sessions.delete(key(id));
    return session?.tokens;
  }

  get size(): number {
    return this.sessions.size;
  }

  private async renew(id: string, session: Session, refreshToken: string): Promise<void> {
    try {
      const confirmed = await this.options.renew!(refreshToken);
      Object.assign(session, {
        identity: confirmed.identity,
        recheckAt: confirmed.recheckAt,
        tokens: {
          idToken: confirmed.tokens.idToken,
          refreshToken: confirmed.tokens.refreshToken ?? refreshToken,
        },
      });
    } catch (error) {
      if (error instanceof SessionRevokedError) this.sessions.delete(key(id));
      else session.recheckAt = this.now() + RETRY_MS;
    }
  }

  private live(id: string): Session | undefined {
    const session = this.sessions.get(key(id));
    if (!session) return undefined;
    if (session.expiresAt > this.now()) return session;
    this.sessions.delete(key(id));
    return undefined;
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(k);
    // Insertion order is age order: the oldest go first.
    for (const k of this.sessions.keys()) {
      if (this.sessions.size < MAX_SESSIONS) break;
      this.sessions.delete(k);
    }
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

const key = (id: string) => createHash('sha256').update(id).digest('base64url');
