import type { Impersonation } from '@ngx/kube-runtime';
import type { Caller } from '../roles.js';
import type { AccessSubject } from './subject-access-reviews.js';

/**
 * The user a static token (AUTH_TOKENS, AUTH_TOKENS_FILE) is to the cluster: its name under a prefix of ours, so
 * that a token can never pass for a person or ServiceAccount of the same name (bind RBAC to
 * `nginx-control-plane:token:<name>`).
 */
export const STATIC_TOKEN_USER_PREFIX = 'nginx-control-plane:token:';

/** kube-apiserver adds this group to every authenticated user (and to every impersonated one). */
const AUTHENTICATED = 'system:authenticated';

/**
 * Who `caller` is to the cluster's RBAC: its identity's username and groups (with system:authenticated, as
 * kube-apiserver's authentication adds it), or for a static token its prefixed name and no group of its own.
 * Groups named `system:…` are kept only from the cluster itself (a ServiceAccount's TokenReview): an identity
 * provider's claim of `system:masters` is dropped, never asked about nor impersonated.
 */
export function subjectOf(caller: Caller): AccessSubject {
  const identity = caller.identity;
  const user = identity ? identity.username : `${STATIC_TOKEN_USER_PREFIX}${caller.name}`;
  const fromCluster = identity?.authenticatedBy === 'serviceaccount';
  const groups = (identity?.groups ?? []).filter((group) => fromCluster || !group.startsWith('system:'));
  return { user, groups: groups.includes(AUTHENTICATED) ? groups : [...groups, AUTHENTICATED] };
}

/** Whom a write on `caller`'s behalf is sent as: the same user and groups the SubjectAccessReviews ask about. */
export function impersonationOf(caller: Caller): Impersonation {
  const { user, groups } = subjectOf(caller);
  return { user, groups };
}
