import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Identity } from '../identity.js';
import { csrfTokenOf, digestOf, seal, unseal } from './session-crypto.js';
import { SessionStorageUnavailableError, type SessionRecords, type SessionRow } from './session-records.js';

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

/**
 * What a session credential turned out to be: its identity; `refused`, a session that does not hold (a 401); or
 * `unavailable`, the session storage could not be asked (a 503, and nobody is signed out for it).
 */
export type SessionAnswer = { identity: Identity } | { refused: string } | { unavailable: string };

/** After the provider could not be reached, how long a session goes on before it is asked again. */
const RETRY_MS = 30_000;
/** How long one request may hold a session's renewal before another may try (a provider round trip, or a crash). */
const RENEWAL_CLAIM_MS = 15_000;
/** How often a request waiting for another replica's renewal looks again. */
const RENEWAL_POLL_MS = 100;
/** Most sessions kept; past it the oldest are ended first. */
const MAX_SESSIONS = 50_000;
/** How often a replica sweeps expired sessions (at most; on a sign-in). */
const SWEEP_EVERY_MS = 60_000;
/** Sessions this replica confirmed lately, by digest, and how long the hint is used for request budgets. */
const HINTS = 10_000;
const HINT_MS = 60_000;

/** The key purpose the tokens are sealed for (session-crypto.ts). */
const TOKENS = 'session tokens';

/**
 * Browser sessions, kept in the audit database through SessionRecords so that every API replica sees the same
 * ones: a rolling update signs nobody out, a load balancer needs no affinity, and a sign-out ends the session on
 * every replica at once. A session is a random 256-bit id (the cookie's value; the database holds its digest and
 * its tokens sealed under it); it lasts `maxAgeMs` from sign-in whatever happens, and its identity is confirmed
 * with the provider whenever its ID token expires, renewed with the refresh token — by one request of one replica
 * (a claim in the database), the others waiting for its outcome, so the provider sees one refresh-token grant. A
 * refresh token revoked at the provider ends the session then; a provider that cannot be reached leaves the session
 * working, asked again every 30 s, until it expires. Without a refresh token a session ends with its ID token.
 * Storage that cannot be reached is `unavailable` (a 503), never a sign-out.
 */
export class SessionStore {
  /** Renewals this replica is making, by digest: its concurrent requests of one session wait for the same one. */
  private readonly renewing = new Map<string, Promise<SessionAnswer>>();
  /** Who this replica's sessions are, lately confirmed: a hint for request budgets only, never for access. */
  private readonly hints = new Map<string, { username: string; until: number }>();
  private lastSweep = 0;

  constructor(
    private readonly records: SessionRecords,
    private readonly options: { maxAgeMs: number; renew?: Renew; now?: () => number },
  ) {}

  /** A new session for `confirmed`: its id (for the cookie), its CSRF token and when it expires. */
  async create(confirmed: ConfirmedIdentity): Promise<{ id: string; csrfToken: string; expiresAt: number }> {
    const now = this.now();
    await this.sweep(now);
    const id = randomBytes(32).toString('base64url');
    const expiresAt = now + this.options.maxAgeMs;
    await this.records.insert(digestOf(id), {
      identity: confirmed.identity,
      sealedTokens: seal(id, TOKENS, confirmed.tokens),
      createdAt: now,
      expiresAt,
      recheckAt: confirmed.recheckAt,
    });
    this.hint(digestOf(id), confirmed.identity);
    return { id, csrfToken: csrfTokenOf(id), expiresAt };
  }

  /** The identity of session `id`, confirmed with the provider first when its ID token has expired. */
  async identify(id: string): Promise<SessionAnswer> {
    const key = digestOf(id);
    const answer = await this.readOrRenew(id, key);
    if ('identity' in answer) this.hint(key, answer.identity);
    else if ('refused' in answer) this.hints.delete(key);
    return answer;
  }

  /** Whether `token` is session `id`'s CSRF token (derived from the id, compared in constant time). */
  csrfMatches(id: string, token: string | undefined): boolean {
    if (!token) return false;
    const expected = Buffer.from(csrfTokenOf(id));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  /**
   * The session's CSRF token, its identity and expiry (for the UI), or undefined for no live session. This and the
   * methods below reject with SessionStorageUnavailableError when the storage cannot be reached.
   */
  async describe(
    id: string,
  ): Promise<{ identity: Identity; csrfToken: string; expiresAt: number } | undefined> {
    const row = await this.records.find(digestOf(id), this.now());
    return row && { identity: row.identity, csrfToken: csrfTokenOf(id), expiresAt: row.expiresAt };
  }

  /** Ends session `id` on every replica; answers its tokens (for signing out at the provider), if it was live. */
  async end(id: string): Promise<SessionTokens | undefined> {
    const key = digestOf(id);
    this.hints.delete(key);
    const row = await this.records.remove(key);
    if (!row || row.expiresAt <= this.now()) return undefined;
    return this.tokensOf(id, row);
  }

  /** Which of the session ids `ids` are still live (for the live connections they authenticated). */
  async stillLive(ids: readonly string[]): Promise<Set<string>> {
    const keys = new Map(ids.map((id) => [digestOf(id), id]));
    const live = await this.records.live([...keys.keys()], this.now());
    return new Set([...live].map((key) => keys.get(key)!));
  }

  /**
   * Whose session `id` is, if this replica confirmed it lately: which request budget it spends from. Never an
   * answer about access (it may have been signed out on another replica since).
   */
  recentUser(id: string): string | undefined {
    const hint = this.hints.get(digestOf(id));
    return hint && hint.until > this.now() ? hint.username : undefined;
  }

  private async readOrRenew(id: string, key: string): Promise<SessionAnswer> {
    let row: SessionRow | undefined;
    try {
      row = await this.records.find(key, this.now());
    } catch (error) {
      return unavailable(error);
    }
    if (!row) return { refused: 'the session has expired or was signed out' };
    if (row.recheckAt > this.now()) return { identity: row.identity };
    const tokens = this.tokensOf(id, row);
    if (!tokens?.refreshToken || !this.options.renew) {
      await this.records.remove(key).catch(() => undefined);
      return { refused: 'the sign-in has expired' };
    }
    const refreshToken = tokens.refreshToken;
    let renewal = this.renewing.get(key);
    if (!renewal) {
      renewal = this.renew(id, key, row, refreshToken).finally(() => this.renewing.delete(key));
      this.renewing.set(key, renewal);
    }
    return renewal;
  }

  /** Renews the session if this request wins the claim; otherwise waits for whoever holds it. */
  private async renew(
    id: string,
    key: string,
    row: SessionRow,
    refreshToken: string,
  ): Promise<SessionAnswer> {
    const now = this.now();
    let claimed: boolean;
    try {
      claimed = await this.records.claimRenewal(key, now, now + RENEWAL_CLAIM_MS);
    } catch (error) {
      return unavailable(error);
    }
    if (!claimed) return this.awaitRenewal(key, now + RENEWAL_CLAIM_MS);
    let confirmed: ConfirmedIdentity;
    try {
      confirmed = await this.options.renew!(refreshToken);
    } catch (error) {
      if (error instanceof SessionRevokedError) {
        await this.records.remove(key).catch(() => undefined);
        return { refused: 'the identity provider ended the sign-in' };
      }
      await this.records.postponeRenewal(key, this.now() + RETRY_MS).catch(() => undefined);
      return { identity: row.identity };
    }
    const tokens = {
      idToken: confirmed.tokens.idToken,
      refreshToken: confirmed.tokens.refreshToken ?? refreshToken,
    };
    try {
      await this.records.saveRenewal(key, {
        identity: confirmed.identity,
        sealedTokens: seal(id, TOKENS, tokens),
        recheckAt: confirmed.recheckAt,
      });
    } catch (error) {
      return unavailable(error);
    }
    return { identity: confirmed.identity };
  }

  /** Another request holds the renewal: its outcome, as the database shows it once the row changes or goes. */
  private async awaitRenewal(key: string, giveUpAt: number): Promise<SessionAnswer> {
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, RENEWAL_POLL_MS));
      let row: SessionRow | undefined;
      try {
        row = await this.records.find(key, this.now());
      } catch (error) {
        return unavailable(error);
      }
      if (!row) return { refused: 'the identity provider ended the sign-in' };
      if (row.recheckAt > this.now()) return { identity: row.identity };
      if (this.now() >= giveUpAt) return { unavailable: 'the session is being renewed; retry shortly' };
    }
  }

  private tokensOf(id: string, row: SessionRow): SessionTokens | undefined {
    try {
      return unseal<SessionTokens>(id, TOKENS, row.sealedTokens);
    } catch {
      return undefined;
    }
  }

  private hint(key: string, identity: Identity): void {
    this.hints.delete(key);
    this.hints.set(key, { username: identity.username, until: this.now() + HINT_MS });
    if (this.hints.size > HINTS) this.hints.delete(this.hints.keys().next().value!);
  }

  private async sweep(now: number): Promise<void> {
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    await this.records.sweep(now, MAX_SESSIONS - 1).catch(() => undefined);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

function unavailable(error: unknown): { unavailable: string } {
  if (error instanceof SessionStorageUnavailableError)
    return { unavailable: `the session storage cannot be reached: ${error.message}` };
  throw error;
}
