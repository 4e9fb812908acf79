import * as client from 'openid-client';
import type { OidcSettings } from '../../config/oidc-settings.js';
import type { Identity } from '../identity.js';
import { fetchTrusting, ProviderUnavailableError } from '../oidc/oidc-token-verifier.js';
import type { PendingSignIn } from './pending-sign-ins.js';
import { SessionRevokedError, type ConfirmedIdentity } from './session-store.js';

/** Verifies an ID token as the REST API does (OidcTokenVerifier): one notion of who a token names. */
export type IdTokenCheck = (idToken: string) => Promise<Identity>;

/** A sign-in the provider or the browser got wrong (a 400/401 to the browser, nothing kept). */
export class SignInRefusedError extends Error {
  override readonly name = 'SignInRefusedError';
}

/**
 * The authorization code flow with PKCE against the configured provider, by openid-client (certified): the
 * discovery document is read on first use (again after a failure); the authorization request carries state,
 * nonce and an S256 code challenge; the callback is checked by openid-client (state, the code's exchange with
 * the verifier, the ID token's signature, issuer, audience, nonce and expiry) and the ID token is then read
 * into an identity exactly as a bearer ID token is. Failures to reach the provider are ProviderUnavailableError.
 */
export class OidcSignIn {
  private configuration?: Promise<client.Configuration>;
  private probe?: { answer: ReturnType<OidcSignIn['available']>; until: number };

  constructor(
    private readonly settings: OidcSettings,
    private readonly checkIdToken: IdTokenCheck,
    private readonly fetch = fetchTrusting(settings.caPem),
  ) {}

  /** The provider's authorization URL for a new sign-in, with what its callback must be finished with. */
  async start(
    redirectUri: string,
    next: string,
  ): Promise<{ url: string; state: string; pending: PendingSignIn }> {
    const configuration = await this.config();
    const availability = await this.available();
    if (!availability.ok) throw new ProviderUnavailableError(availability.problem);
    const codeVerifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: this.settings.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url: url.href, state, pending: { codeVerifier, nonce, next, redirectUri } };
  }

  /** Finishes sign-in `pending` with the provider's callback `callbackUrl` (its code and state). */
  async finish(callbackUrl: URL, state: string, pending: PendingSignIn): Promise<ConfirmedIdentity> {
    const configuration = await this.config();
    // openid-client compares redirect_uri by the URL it is given: the callback as the provider called it back.
    const current = new URL(pending.redirectUri);
    current.search = callbackUrl.search;
    let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
    try {
      tokens = await client.authorizationCodeGrant(configuration, current, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw (
        unreachable(error) ?? new SignInRefusedError(`the provider's answer was refused: ${messageOf(error)}`)
      );
    }
    return this.confirmed(tokens);
  }

  /** Renews a session with its refresh token (SessionStore's Renew). */
  readonly renew = async (refreshToken: string): Promise<ConfirmedIdentity> => {
    const configuration = await this.config();
    let tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers;
    try {
      tokens = await client.refreshTokenGrant(configuration, refreshToken);
    } catch (error) {
      throw unreachable(error) ?? new SessionRevokedError(messageOf(error));
    }
    return this.confirmed(tokens);
  };

  /** Where to send the browser to sign out at the provider too, if it supports RP-initiated logout. */
  async endSessionUrl(idToken: string, postLogoutRedirectUri: string): Promise<string | undefined> {
    let configuration: client.Configuration;
    try {
      configuration = await this.config();
    } catch {
      return undefined; // signed out here; the provider cannot be told now
    }
    if (!configuration.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(configuration, {
      id_token_hint: idToken,
      post_logout_redirect_uri: postLogoutRedirectUri,
    }).href;
  }

  /**
   * Whether the provider answers its discovery document now (asked again after PROBE_CACHE_MS): the sign-in page
   * says so, and a sign-in is not sent to a provider that is down.
   */
  available(): Promise<{ ok: true } | { ok: false; problem: string }> {
    const now = Date.now();
    if (this.probe && this.probe.until > now) return this.probe.answer;
    const answer = this.config()
      .then(() =>
        this.fetch(discoveryUrl(this.settings.issuerUrl), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }),
      )
      .then((response) =>
        response.ok
          ? ({ ok: true } as const)
          : ({ ok: false, problem: `its discovery document answered ${response.status}` } as const),
      )
      .catch((error: unknown) => ({ ok: false, problem: messageOf(error) }) as const);
    this.probe = { answer, until: now + PROBE_CACHE_MS };
    return answer;
  }

  private async confirmed(
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  ): Promise<ConfirmedIdentity> {
    if (!tokens.id_token) throw new SignInRefusedError('the provider answered no ID token');
    let identity: Identity;
    try {
      identity = await this.checkIdToken(tokens.id_token);
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw error;
      throw new SignInRefusedError(`the ID token was refused: ${messageOf(error)}`);
    }
    const exp = tokens.claims()?.exp;
    return {
      identity,
      tokens: {
        idToken: tokens.id_token,
        ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
      },
      recheckAt: typeof exp === 'number' ? exp * 1000 : Date.now(),
    };
  }

  private config(): Promise<client.Configuration> {
    this.configuration ??= this.discover().catch((error: unknown) => {
      this.configuration = undefined;
      throw error;
    });
    return this.configuration;
  }

  private async discover(): Promise<client.Configuration> {
    const { issuerUrl, clientId, clientSecret } = this.settings;
    const customFetch = this.fetch as unknown as client.CustomFetch;
    try {
      const configuration = await client.discovery(
        new URL(issuerUrl),
        clientId,
        undefined,
        clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(),
        { [client.customFetch]: customFetch, timeout: 10 },
      );
      configuration[client.customFetch] = customFetch;
      return configuration;
    } catch (error) {
      throw new ProviderUnavailableError(
        `cannot read the identity provider's discovery document at ${issuerUrl}: ${messageOf(error)}`,
      );
    }
  }
}

/** How long the answer of a probe of the provider holds, and how long one may take. */
const PROBE_CACHE_MS = 2_000;
const PROBE_TIMEOUT_MS = 3_000;

const discoveryUrl = (issuer: string) => `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;

/** The error as ProviderUnavailableError when it is one of reaching the provider, not of its answer. */
function unreachable(error: unknown): ProviderUnavailableError | undefined {
  if (error instanceof ProviderUnavailableError) return error;
  if (error instanceof client.ResponseBodyError)
    return error.status >= 500 ? new ProviderUnavailableError(messageOf(error)) : undefined;
  if (error instanceof client.AuthorizationResponseError) return undefined;
  if (
    error instanceof TypeError ||
    (error as { name?: string }).name === 'AbortError' ||
    (error as { name?: string }).name === 'TimeoutError'
  )
    return new ProviderUnavailableError(`cannot reach the identity provider: ${messageOf(error)}`);
  return undefined;
}

function messageOf(error: unknown): string {
  if (error instanceof client.ResponseBodyError || error instanceof client.AuthorizationResponseError)
    return `${error.error}${error.error_description ? `: ${error.error_description}` : ''}`;
  const cause = (error as { cause?: unknown }).cause;
  const own = error instanceof Error ? error.message : String(error);
  return cause instanceof Error && cause.message !== own ? `${own} (${cause.message})` : own;
}
