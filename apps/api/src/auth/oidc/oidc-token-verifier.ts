import {
  createRemoteJWKSet,
  customFetch,
  errors,
  jwtVerify,
  type FetchImplementation,
  type JWTPayload,
} from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import type { Identity } from '../identity.js';
import type { OidcSettings } from '../../config/oidc-settings.js';

/** Most groups one token may carry; a token with more is refused rather than cut (a cut list would be a lie). */
export const MAX_GROUPS = 500;
/** Longest group or username, in characters. */
export const MAX_NAME_LENGTH = 512;
/** Longest a discovery document or key set fetch may take. */
const FETCH_TIMEOUT_MS = 5_000;

/** Why a token was refused: said in the 401's message (never the token itself). */
export class TokenRefusedError extends Error {
  override name = 'TokenRefusedError';
}

/** The provider could not be asked (down, unreachable, an answer that is not a discovery document or key set). */
export class ProviderUnavailableError extends Error {
  override name = 'ProviderUnavailableError';
}

/** What OidcTokenVerifier needs of the network: a fetch (tests and the app pass one that trusts OIDC_CA_FILE). */
export type Fetch = (
  url: string,
  init?: { signal?: AbortSignal; headers?: Record<string, string> },
) => Promise<{
  ok: boolean;
  status: number;
  json(): Promise<unknown>;
}>;

/** A fetch that trusts `caPem` (and only it) for TLS when given, the system's CAs otherwise. */
export function fetchTrusting(caPem: string | undefined): Fetch {
  const dispatcher = caPem ? new Agent({ connect: { ca: caPem } }) : undefined;
  return (url, init) => undiciFetch(url, { ...init, ...(dispatcher ? { dispatcher } : {}) });
}

/**
 * Verifies ID tokens (and JWT access tokens) of one OpenID provider as kube-apiserver's OIDC authenticator does,
 * with jose doing the cryptography:
 * - The issuer's discovery document (`/.well-known/openid-configuration`) is read on first use (again after a
 *   failure) and must name the configured issuer; its `jwks_uri` gives the signing keys, fetched again when a
 *   token names a key not seen yet (a rotation), at most once per 30 s, and when older than `jwksCacheSeconds`,
 *   so a key the provider rotated out stops verifying then.
 * - A token must be signed by one of those keys with an allowed algorithm (`alg: none` and HMAC never), name the
 *   issuer as `iss` and the client id in `aud`, carry `exp`, and be within `exp` / `nbf` give or take
 *   `clockSkewSeconds`.
 * - The username claim must be a non-empty string (for `email`, with `email_verified` not false); the groups
 *   claim absent, a string or a list of at most MAX_GROUPS strings. Both get their prefixes.
 * Rejects with TokenRefusedError (the token is no good) or ProviderUnavailableError (it could not be checked).
 */
export class OidcTokenVerifier {
  private keys?: Promise<ReturnType<typeof createRemoteJWKSet>>;

  constructor(
    private readonly settings: OidcSettings,
    private readonly fetch: Fetch = fetchTrusting(settings.caPem),
  ) {}

  async verify(token: string): Promise<Identity> {
    const keys = await this.keySet();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.settings.issuerUrl,
        audience: this.settings.clientId,
        algorithms: this.settings.signingAlgorithms,
        clockTolerance: this.settings.clockSkewSeconds,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw refusalOf(error);
    }
    return this.identityOf(payload);
  }

  /** The identity a verified token's claims name, as configured. */
  private identityOf(claims: JWTPayload): Identity {
    const { usernameClaim, usernamePrefix, groupsClaim, groupsPrefix } = this.settings;
    const name = claims[usernameClaim];
    if (typeof name !== 'string' || name === '')
      throw new TokenRefusedError(`the token's ${usernameClaim} claim is not a non-empty string`);
    if (usernameClaim === 'email' && claims.email_verified === false)
      throw new TokenRefusedError('the token names an email that is not verified');
    const groups = groupsClaim === undefined ? [] : groupList(claims[groupsClaim], groupsClaim);
    const username = usernamePrefix + name;
    for (const each of [username, ...groups])
      if (each.length > MAX_NAME_LENGTH)
        throw new TokenRefusedError(
          `the token names a user or group longer than ${MAX_NAME_LENGTH} characters`,
        );
    const email =
      typeof claims.email === 'string' && claims.email_verified !== false ? claims.email : undefined;
    return {
      username,
      groups: groups.map((group) => groupsPrefix + group),
      ...(email ? { email } : {}),
      authenticatedBy: 'oidc',
    };
  }

  private keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.keys ??= this.discover().catch((error: unknown) => {
      this.keys = undefined; // asked again on the next token
      throw error;
    });
    return this.keys;
  }

  private async discover(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    const issuer = this.settings.issuerUrl;
    const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
    const document = await this.fetchJson(url);
    const discovered = document as { issuer?: unknown; jwks_uri?: unknown };
    if (discovered.issuer !== issuer)
      throw new ProviderUnavailableError(
        `the discovery document at ${url} names the issuer ${String(discovered.issuer)}, not ${issuer}`,
      );
    if (typeof discovered.jwks_uri !== 'string')
      throw new ProviderUnavailableError(`the discovery document at ${url} has no jwks_uri`);
    const fetchKeys: FetchImplementation = async (keysUrl, options) =>
      (await this.fetch(keysUrl, {
        signal: options.signal,
        headers: Object.fromEntries(new Headers(options.headers)),
      })) as unknown as Response;
    return createRemoteJWKSet(new URL(discovered.jwks_uri), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      cacheMaxAge: this.settings.jwksCacheSeconds * 1000,
      [customFetch]: fetchKeys,
    });
  }

  private async fetchJson(url: string): Promise<unknown> {
    let response: Awaited<ReturnType<Fetch>>;
    try {
      response = await this.fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
    } catch (error) {
      throw new ProviderUnavailableError(`cannot reach the identity provider at ${url}: ${causeOf(error)}`);
    }
    if (!response.ok) throw new ProviderUnavailableError(`${url} answered ${response.status}`);
    try {
      return await response.json();
    } catch {
      throw new ProviderUnavailableError(`${url} did not answer JSON`);
    }
  }
}

function groupList(value: unknown, claim: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || !value.every((group) => typeof group === 'string'))
    throw new TokenRefusedError(`the token's ${claim} claim is not a string or a list of strings`);
  if (value.length > MAX_GROUPS)
    throw new TokenRefusedError(
      `the token's ${claim} claim lists ${value.length} groups, more than ${MAX_GROUPS}`,
    );
  return value as string[];
}

/** jose's reasons in words a 401 can carry; a key set that could not be fetched is the provider's failure. */
function refusalOf(error: unknown): Error {
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid)
    return new ProviderUnavailableError(`the identity provider's signing keys: ${(error as Error).message}`);
  if (error instanceof errors.JWTExpired) return new TokenRefusedError('the token has expired');
  if (error instanceof errors.JWTClaimValidationFailed)
    return new TokenRefusedError(`the token's ${error.claim} claim is not accepted (${error.reason})`);
  if (error instanceof errors.JOSEAlgNotAllowed)
    return new TokenRefusedError('the token is signed with an algorithm not accepted');
  if (error instanceof errors.JWKSNoMatchingKey)
    return new TokenRefusedError('the token is signed with a key the identity provider does not publish');
  if (error instanceof errors.JWSSignatureVerificationFailed)
    return new TokenRefusedError('the token signature does not verify');
  if (error instanceof errors.JOSEError)
    return new TokenRefusedError(`the token is not accepted: ${error.code}`);
  if (error instanceof TypeError || (error instanceof Error && /fetch/i.test(error.message)))
    return new ProviderUnavailableError(`the identity provider's signing keys: ${causeOf(error)}`);
  return new TokenRefusedError('the token is not accepted');
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error
    ? `${(error as Error).message}: ${cause.message}`
    : String((error as Error).message ?? error);
}
