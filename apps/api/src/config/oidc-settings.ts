import { oidcEnv, type SigningAlgorithm } from './app-env.js';
import { readEnv, type Environment } from './env-readers.js';

export { SIGNING_ALGORITHMS, type SigningAlgorithm } from './app-env.js';

/**
 * One OpenID provider, configured as kube-apiserver's `--oidc-*` flags configure one (so one provider's tokens
 * mean the same person on both APIs):
 * - `usernameClaim` defaults to `sub`; `usernamePrefix` defaults to `<issuer>#` for any claim but `email` (so a
 *   `sub` can never pass for a name of another provider or a static token's), and `-` means none.
 * - `groupsPrefix` is prepended to every group (none by default).
 * - `signingAlgorithms` defaults to RS256 alone; `none` and HMAC are never accepted.
 */
export interface OidcSettings {
  issuerUrl: string;
  clientId: string;
  /** Read from OIDC_CLIENT_SECRET_FILE; undefined for a public client (PKCE alone). */
  clientSecret?: string;
  scopes: string[];
  usernameClaim: string;
  usernamePrefix: string;
  groupsClaim?: string;
  groupsPrefix: string;
  signingAlgorithms: SigningAlgorithm[];
  /** PEM of the CA that signed the provider's TLS certificate (OIDC_CA_FILE); the system's CAs otherwise. */
  caPem?: string;
  /** Leeway for `exp`, `nbf` and `iat` against clocks that disagree (OIDC_CLOCK_SKEW_SECONDS, at most 300). */
  clockSkewSeconds: number;
  /** How long fetched signing keys are trusted before they are fetched again (OIDC_JWKS_CACHE_SECONDS). */
  jwksCacheSeconds: number;
  /**
   * Where the provider sends the browser back after sign-in (OIDC_REDIRECT_URL, registered at the provider);
   * undefined: this server's own origin as the request names it, + /controlplane/v1/auth/callback.
   */
  redirectUrl?: string;
  /** A browser session's lifetime, however often it is refreshed (SESSION_MAX_AGE_SECONDS, default 8 h). */
  sessionMaxAgeSeconds: number;
}

/** The provider configured by OIDC_* variables, or undefined when OIDC_ISSUER_URL is not set. */
export function oidcSettings(env: Environment, cwd = process.cwd()): OidcSettings | undefined {
  if (!env.OIDC_ISSUER_URL?.trim()) return undefined;
  const oidc = readEnv(oidcEnv(cwd), env);
  const issuerUrl = oidc.OIDC_ISSUER_URL!;
  const usernameClaim = oidc.OIDC_USERNAME_CLAIM;
  const redirectUrl = oidc.OIDC_REDIRECT_URL;
  return {
    issuerUrl,
    clientId: oidc.OIDC_CLIENT_ID,
    clientSecret: oidc.OIDC_CLIENT_SECRET_FILE,
    scopes: oidc.OIDC_SCOPES,
    usernameClaim,
    usernamePrefix: oidc.OIDC_USERNAME_PREFIX ?? (usernameClaim === 'email' ? '' : `${issuerUrl}#`),
    groupsClaim: oidc.OIDC_GROUPS_CLAIM,
    groupsPrefix: oidc.OIDC_GROUPS_PREFIX,
    signingAlgorithms: oidc.OIDC_SIGNING_ALGS,
    caPem: oidc.OIDC_CA_FILE,
    clockSkewSeconds: oidc.OIDC_CLOCK_SKEW_SECONDS,
    jwksCacheSeconds: oidc.OIDC_JWKS_CACHE_SECONDS,
    ...(redirectUrl && { redirectUrl: new URL(redirectUrl).href }),
    sessionMaxAgeSeconds: oidc.SESSION_MAX_AGE_SECONDS,
  };
}
