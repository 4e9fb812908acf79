import type { AppEnv } from './app-env.js';
import { ConfigError } from './config-error.js';

/**
 * `roles`: our own roles (static tokens' roles, AUTH_POLICY_FILE for identities). `kubernetes`: the cluster's RBAC,
 * asked with a SubjectAccessReview per request for the caller's user and groups, its answers reused for
 * `cacheMs` (0: never), and writes sent to kube-apiserver impersonating the caller.
 */
export type AuthorizationSettings = { mode: 'roles' } | { mode: 'kubernetes'; cacheMs: number };

/** AUTHORIZATION and AUTHORIZATION_CACHE_SECONDS; AUTH_POLICY_FILE only means something to `roles`. */
export function authorizationSettings(
  env: Pick<AppEnv, 'AUTHORIZATION' | 'AUTHORIZATION_CACHE_SECONDS' | 'AUTH_POLICY_FILE'>,
): AuthorizationSettings {
  if (env.AUTHORIZATION === 'roles') return { mode: 'roles' };
  if (env.AUTH_POLICY_FILE)
    throw new ConfigError(
      'AUTH_POLICY_FILE grants our roles, which AUTHORIZATION=kubernetes does not use: the cluster’s RBAC decides; unset one of them',
    );
  return { mode: 'kubernetes', cacheMs: Math.round(env.AUTHORIZATION_CACHE_SECONDS * 1000) };
}
