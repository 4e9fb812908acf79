import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { errorMessage, type RuntimeLogger } from '@ngx/kube-runtime';
import { ExpiringCache } from '../cache/expiring-cache.js';
import type { Identity } from './identity.js';
import type { OidcTokenVerifier } from './oidc/oidc-token-verifier.js';
import { TokenRefusedError } from './oidc/oidc-token-verifier.js';
import type { PolicySource } from './policy-source.js';
import { sessionIdOf } from './session/session-cookies.js';
import type { SessionStore } from './session/session-store.js';
import { callerWithGrants, rbacCaller, type Caller } from './roles.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';
import type { TokenStore } from './token-store.js';

/**
 * What a bearer token turned out to be: a caller; an identity the policy grants nothing (`forbidden`, a 403); not
 * a token we take (`refused`, a 401, with why); or a session that cannot be looked up now (`unavailable`, a 503:
 * the session storage is away, and nobody is signed out for it).
 */
export type Authentication =
  | { caller: Caller }
  | { forbidden: string; identity: Identity }
  | { refused: string }
  | { unavailable: string };

/** How long a verified ID token's answer is reused (never past its `exp`). */
const OIDC_CACHE_MS = 60_000;
/** How long a TokenReview's answer is reused: a deleted ServiceAccount's token stops working within it. */
const REVIEW_CACHE_MS = 10_000;
/** Most answers kept; the oldest go first. */
const CACHE_SIZE = 10_000;

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** The token of an `Authorization: Bearer <token>` header, if that is what it is. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
}

/**
 * Who a bearer token is, through every door we take: a static token of the token file (compared in constant
 * time, TokenStore); an ID token of the configured OpenID provider (its `iss`; verified by OidcTokenVerifier);
 * any other JWT is asked of kube-apiserver with a TokenReview for our audience (ServiceAccount tokens). An
 * identity's rights come from the access policy (PolicySource): an identity it does not name is authenticated
 * and may do nothing. Answers are kept briefly by the token's digest (ID tokens up to a minute and never past
 * `exp`, TokenReviews 10 s), so `known` can answer the paths that cannot wait (the request budget, the relayed
 * read lane) once a token has been seen. Browser sessions are looked up in the shared session storage on every
 * request (SessionStore), so a sign-out on one replica holds on all of them at once. What is kept is the identity, not its rights: the policy in force
 * decides on every request, so an edit of the policy file takes effect within a second.
 */
export class Authenticator {
  /** Identities of tokens verified lately, by the token's digest: authorized again on every use. */
  private readonly cache: ExpiringCache<Identity>;

  constructor(
    private readonly tokens: TokenStore,
    private readonly policy: PolicySource,
    private readonly options: {
      oidc?: { verifier: OidcTokenVerifier; issuer: string };
      serviceAccounts?: ServiceAccountTokens;
      /** Browser sessions of the UI's sign-in with the provider (credential `Session <id>`, from the cookie). */
      sessions?: SessionStore;
      /**
       * The cluster's RBAC decides what callers may do (AUTHORIZATION=kubernetes): every token we take is a caller
       * holding none of our roles (rbacCaller), the policy file is not read, and a static token's role is ignored.
       */
      rbac?: boolean;
      logger?: RuntimeLogger;
      now?: () => number;
    } = {},
  ) {
    this.cache = new ExpiringCache({ maxEntries: CACHE_SIZE, now: options.now });
  }

  /**
   * The caller of a static token or of a bearer token authenticated moments ago, known without asking anyone;
   * undefined otherwise, and always for a browser session (only the shared session storage can say whether one
   * still holds: it may have been signed out on another replica). `authorization` is a request's credential as
   * credentialOf reads it.
   */
  known(authorization: string | undefined): Caller | undefined {
    if (sessionIdOf(authorization)) return undefined;
    const token = bearerToken(authorization);
    if (!token) return undefined;
    const fixed = this.identifyStatic(token);
    if (fixed) return fixed;
    const identity = this.cached(token);
    const answer = identity && this.authorize(identity);
    return answer && 'caller' in answer ? answer.caller : undefined;
  }

  /**
   * Whose request budget a credential spends from, without asking anyone: a known caller's name, or the user of a
   * session this replica confirmed lately; undefined (spend the client address's) otherwise. Never about access.
   */
  spender(authorization: string | undefined): string | undefined {
    const session = sessionIdOf(authorization);
    if (session) return this.options.sessions?.recentUser(session);
    return this.known(authorization)?.name;
  }

  async authenticate(authorization: string | undefined): Promise<Authentication> {
    const session = sessionIdOf(authorization);
    if (session) {
      if (!this.options.sessions) return { refused: 'sign-in with an identity provider is not configured' };
      const answer = await this.options.sessions.identify(session);
      return 'identity' in answer ? this.authorize(answer.identity) : answer;
    }
    const token = bearerToken(authorization);
    if (!token) return { refused: 'a valid bearer token is required' };
    const fixed = this.identifyStatic(token);
    if (fixed) return { caller: fixed };
    const identity = this.cached(token);
    if (identity) return this.authorize(identity);
    if (!JWT.test(token)) return { refused: 'the token is not known' };
    let issuer: unknown;
    try {
      issuer = decodeJwt(token).iss;
    } catch {
      return { refused: 'the token is not a readable JWT' };
    }
    const { oidc, serviceAccounts } = this.options;
    if (oidc && issuer === oidc.issuer) return this.verifyIdToken(token, oidc.verifier);
    if (serviceAccounts) return this.reviewToken(token, serviceAccounts);
    return { refused: 'the token is not known' };
  }

  private async verifyIdToken(token: string, verifier: OidcTokenVerifier): Promise<Authentication> {
    try {
      const identity = await verifier.verify(token);
      const exp = decodeJwt(token).exp;
      const until = Math.min(this.now() + OIDC_CACHE_MS, typeof exp === 'number' ? exp * 1000 : 0);
      this.remember(token, identity, until);
      return this.authorize(identity);
    } catch (error) {
      if (error instanceof TokenRefusedError) return { refused: error.message };
      this.options.logger?.warn('cannot verify an ID token: the identity provider is unavailable', {
        error: errorMessage(error),
      });
      return {
        refused: `the identity provider cannot be reached to verify the token: ${errorMessage(error)}`,
      };
    }
  }

  private async reviewToken(token: string, reviews: ServiceAccountTokens): Promise<Authentication> {
    try {
      const outcome = await reviews.review(token);
      if ('refused' in outcome) return outcome;
      this.remember(token, outcome.identity, this.now() + REVIEW_CACHE_MS);
      return this.authorize(outcome.identity);
    } catch (error) {
      this.options.logger?.warn('cannot review a token with kube-apiserver', {
        error: errorMessage(error),
      });
      return { refused: `the cluster cannot be asked about the token now: ${errorMessage(error)}` };
    }
  }

  /** The caller of a static token: its role, or with the cluster's RBAC deciding, its name only. */
  private identifyStatic(token: string): Caller | undefined {
    const fixed = this.tokens.identify(token);
    return fixed && this.options.rbac ? rbacCaller(fixed.name) : fixed;
  }

  /** What the access policy in force grants `identity` (on every request: a policy edit applies at once). */
  authorize(identity: Identity): Authentication {
    if (this.options.rbac) return { caller: rbacCaller(identity.username, identity) };
    const caller = callerWithGrants(identity.username, this.policy.current().grantsFor(identity), identity);
    return caller
      ? { caller }
      : {
          forbidden: `${identity.username} is authenticated but the access policy grants it nothing`,
          identity,
        };
  }

  private cached(token: string): Identity | undefined {
    return this.cache.get(digest(token));
  }

  private remember(token: string, identity: Identity, until: number): void {
    this.cache.set(digest(token), identity, until);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

const digest = (token: string) => createHash('sha256').update(token).digest('base64url');
