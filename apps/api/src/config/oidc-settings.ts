import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError } from './config-error.js';

/** The JWS algorithms a token may be signed with, as kube-apiserver's `--oidc-signing-algs` accepts them. */
export const SIGNING_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'ES256',
  'ES384',
  'ES512',
  'PS256',
  'PS384',
  'PS512',
] as const;
export type SigningAlgorithm = (typeof SIGNING_ALGORITHMS)[number];

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

type Environment = Record<string, string | undefined>;

/** The provider configured by OIDC_* variables, or undefined when OIDC_ISSUER_URL is not set. */
export function oidcSettings(env: Environment, cwd = process.cwd()): OidcSettings | undefined {
  const issuerUrl = env.OIDC_ISSUER_URL?.trim();
  if (!issuerUrl) return undefined;
  let issuer: URL;
  try {
    issuer = new URL(issuerUrl);
  } catch {
    throw new ConfigError(`OIDC_ISSUER_URL is not a URL: ${issuerUrl}`);
  }
  if (issuer.protocol !== 'https:')
    throw new ConfigError(`OIDC_ISSUER_URL must be https (as kube-apiserver requires): ${issuerUrl}`);
  const clientId = env.OIDC_CLIENT_ID?.trim();
  if (!clientId) throw new ConfigError('OIDC_CLIENT_ID is required with OIDC_ISSUER_URL');
  const usernameClaim = env.OIDC_USERNAME_CLAIM?.trim() || 'sub';
  const prefix = env.OIDC_USERNAME_PREFIX?.trim();
  const usernamePrefix = prefix === '-' ? '' : (prefix ?? (usernameClaim === 'email' ? '' : `${issuerUrl}#`));
  const algorithms = (env.OIDC_SIGNING_ALGS?.trim() || 'RS256').split(',').map((alg) => alg.trim());
  const unknown = algorithms.filter((alg) => !(SIGNING_ALGORITHMS as readonly string[]).includes(alg));
  if (unknown.length > 0)
    throw new ConfigError(
      `OIDC_SIGNING_ALGS: ${unknown.join(', ')} not accepted (one of ${SIGNING_ALGORITHMS.join(', ')})`,
    );
  return {
    issuerUrl,
    clientId,
    clientSecret: readSecret('OIDC_CLIENT_SECRET_FILE', env.OIDC_CLIENT_SECRET_FILE, cwd),
    scopes: (env.OIDC_SCOPES?.trim() || 'openid profile email groups offline_access').split(/[\s,]+/),
    usernameClaim,
    usernamePrefix,
    groupsClaim: env.OIDC_GROUPS_CLAIM?.trim() || undefined,
    groupsPrefix: env.OIDC_GROUPS_PREFIX?.trim() ?? '',
    signingAlgorithms: algorithms as SigningAlgorithm[],
    caPem: readSecret('OIDC_CA_FILE', env.OIDC_CA_FILE, cwd),
    clockSkewSeconds: seconds('OIDC_CLOCK_SKEW_SECONDS', env.OIDC_CLOCK_SKEW_SECONDS, 30, 300),
    jwksCacheSeconds: seconds('OIDC_JWKS_CACHE_SECONDS', env.OIDC_JWKS_CACHE_SECONDS, 300, 86_400),
    ...redirectUrl(env.OIDC_REDIRECT_URL),
    sessionMaxAgeSeconds: seconds(
      'SESSION_MAX_AGE_SECONDS',
      env.SESSION_MAX_AGE_SECONDS,
      8 * 3600,
      7 * 86_400,
    ),
  };
}

function redirectUrl(raw: string | undefined): { redirectUrl?: string } {
  const value = raw?.trim();
  if (!value) return {};
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`OIDC_REDIRECT_URL is not a URL: ${value}`);
  }
  if (url.protocol !== 'https:' && url.hostname !== 'localhost' && url.hostname !== '127.0.0.1')
    throw new ConfigError(`OIDC_REDIRECT_URL must be https (or on localhost): ${value}`);
  return { redirectUrl: url.href };
}

function readSecret(name: string, raw: string | undefined, cwd: string): string | undefined {
  const path = raw?.trim();
  if (!path) return undefined;
  try {
    return readFileSync(resolve(cwd, path), 'utf8').trim();
  } catch (error) {
    throw new ConfigError(`${name}: cannot read ${path}: ${(error as Error).message}`);
  }
}

function seconds(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || value > max)
    throw new ConfigError(`${name} must be a number of seconds from 0 to ${max}: ${raw}`);
  return value;
}
