import type { KubernetesAuthorizer } from './kubernetes/kubernetes-authorizer.js';

/**
 * Who decides what callers may do (AUTHORIZATION): our roles when `kubernetes` is undefined (the default, checked
 * where each request is handled: the bearer guard, NginxWrites, the live gateway), or the cluster's RBAC.
 */
export class Authorization {
  constructor(readonly kubernetes?: KubernetesAuthorizer) {}
}
