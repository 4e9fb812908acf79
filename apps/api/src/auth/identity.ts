/** How a caller proved who they are. */
export type AuthenticatedBy = 'static-token' | 'oidc' | 'serviceaccount';

/**
 * A person or workload as an identity provider (or the cluster, or our token file) named them: what the audit
 * records as "who", and what policy or the cluster's RBAC decides on.
 */
export interface Identity {
  /** The username, prefixed as configured (as kube-apiserver's `--oidc-username-prefix` does). */
  username: string;
  /** Groups, prefixed as configured; empty when the provider sent none. */
  groups: readonly string[];
  /** An address to show people (the `email` claim), when the provider sent a verified one. */
  email?: string;
  authenticatedBy: AuthenticatedBy;
}
