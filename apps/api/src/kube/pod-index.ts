import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import { LABEL_NGINX, NGINX_KIND } from '@ngx/nginx-api';

/** Index of the pod cache: pods by the Nginx key (`namespace/name`) their owner reference or label names. */
export const PODS_BY_NGINX = 'nginx';

/** The controller owner reference of a pod, if any. */
export function controllerOf(pod: V1Pod): V1OwnerReference | undefined {
  return pod.metadata?.ownerReferences?.find((ref) => ref.controller);
}

/**
 * The key of the Nginx a pod belongs to: by its controller owner reference when it has one (only if that is an
 * Nginx), otherwise by our label — the case of an orphan waiting to be adopted.
 */
export function owningNginxKey(pod: V1Pod): string | undefined {
  const namespace = pod.metadata?.namespace;
  if (!namespace) return undefined;
  const controller = controllerOf(pod);
  if (controller) return controller.kind === NGINX_KIND ? `${namespace}/${controller.name}` : undefined;
  const label = pod.metadata?.labels?.[LABEL_NGINX];
  return label ? `${namespace}/${label}` : undefined;
}

/** The `PODS_BY_NGINX` index function: the one Nginx key a pod files under, or none. */
export function podsByNginx(pod: V1Pod): string[] {
  const key = owningNginxKey(pod);
  return key ? [key] : [];
}

/**
 * Index of the caches of what the controller makes besides pods (ControllerRevisions, ConfigMaps, the Service, the
 * budget, the Service's EndpointSlices, which inherit its labels): by the Nginx key their label names.
 */
export const BY_NGINX_LABEL = 'nginx-label';

export function byNginxLabel(object: {
  metadata?: { namespace?: string; labels?: Record<string, string> };
}): string[] {
  const namespace = object.metadata?.namespace;
  const label = object.metadata?.labels?.[LABEL_NGINX];
  return namespace && label ? [`${namespace}/${label}`] : [];
}
