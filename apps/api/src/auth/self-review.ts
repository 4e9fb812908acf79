import { NGINX_GROUP, NGINX_PLURAL } from '@ngx/nginx-api';
import { subjectOf } from './kubernetes/caller-subject.js';
import type { NginxAccess } from './kubernetes/subject-access-reviews.js';
import { accessRefusal, roleNeeded, type Caller } from './roles.js';

/** The `resourceAttributes` of a SelfSubjectAccessReview, as kubectl sends them. */
export interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}

const SUBRESOURCES = new Set(['', 'status', 'scale']);

/**
 * What this control plane would do with the request the attributes describe, made by `caller`: the same rules the
 * REST layer applies (roles, a limited token's namespaces), for `kubectl auth can-i`. Anything but Nginxes is
 * not served here, so it is not allowed.
 */
export function reviewAccess(
  caller: Caller,
  attributes: ResourceAttributes,
): { allowed: boolean; reason: string } {
  const { verb = '', group = '', resource = '', subresource = '', namespace = '' } = attributes;
  if (group !== NGINX_GROUP || resource !== NGINX_PLURAL || !SUBRESOURCES.has(subresource))
    return { allowed: false, reason: `this control plane serves only ${NGINX_PLURAL}.${NGINX_GROUP}` };
  const needed = roleNeeded(verb, subresource || undefined);
  if (!needed)
    return { allowed: false, reason: `the control plane does not serve ${verb} on ${NGINX_PLURAL}` };
  const refusal = accessRefusal(caller, needed, { namespace: namespace || undefined });
  if (refusal === 'role')
    return { allowed: false, reason: `${caller.name} has role ${caller.role}; ${verb} needs ${needed}` };
  if (refusal === 'namespace')
    return {
      allowed: false,
      reason: caller.grants
        ? `${caller.name} holds no role allowing ${verb} in ${namespace || 'every namespace'}`
        : `${caller.name} is limited to the namespaces ${caller.namespaces!.join(', ')}`,
    };
  return { allowed: true, reason: `${caller.name} has role ${caller.role}` };
}

/**
 * The question to put to the cluster's RBAC (AUTHORIZATION=kubernetes) for a SelfSubjectAccessReview: the same
 * request on Nginxes; or, for anything this control plane does not serve, the answer `not allowed` at once.
 */
export function clusterQuestion(
  attributes: ResourceAttributes,
): NginxAccess | { allowed: false; reason: string } {
  const { verb = '', group = '', resource = '', subresource = '', namespace = '', name = '' } = attributes;
  if (group !== NGINX_GROUP || resource !== NGINX_PLURAL || !SUBRESOURCES.has(subresource))
    return { allowed: false, reason: `this control plane serves only ${NGINX_PLURAL}.${NGINX_GROUP}` };
  if (!roleNeeded(verb, subresource || undefined))
    return { allowed: false, reason: `the control plane does not serve ${verb} on ${NGINX_PLURAL}` };
  return {
    verb,
    ...(namespace ? { namespace } : {}),
    ...(name ? { name } : {}),
    ...(subresource ? { subresource } : {}),
  };
}

/**
 * Who the caller is, as a SelfSubjectReview's userInfo says it (`kubectl auth whoami`). With the cluster's RBAC
 * deciding, the user and groups it is asked about and writes as; a person or a ServiceAccount is named as
 * kube-apiserver names them (their username and groups, and system:authenticated), so the same token gets the
 * same answer from both APIs; a static token by its name and role.
 */
export function userInfo(caller: Caller) {
  if (caller.rbac) {
    const { user, groups } = subjectOf(caller);
    return { username: user, groups: [...groups] };
  }
  if (caller.identity)
    return {
      username: caller.identity.username,
      groups: [...new Set([...caller.identity.groups, 'system:authenticated'])],
    };
  return {
    username: caller.name,
    groups: [`nginx-control-plane:${caller.role}`, 'system:authenticated'],
    ...(caller.namespaces ? { extra: { 'mycompany.com/namespaces': [...caller.namespaces] } } : {}),
  };
}
