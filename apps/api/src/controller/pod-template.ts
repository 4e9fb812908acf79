import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';
import {
  DEFAULT_IMAGE,
  LABEL_APP_NAME,
  LABEL_MANAGED_BY,
  LABEL_NGINX,
  NGINX_API_VERSION,
  NGINX_KIND,
  type Nginx,
} from '@ngx/nginx-api';

/** The value of app.kubernetes.io/managed-by on every pod this controller creates. */
export const MANAGED_BY = 'nginx-control-plane';

/** The labels that select an Nginx's pods (also its scale subresource's selector). */
export function podSelector(nginxName: string): Record<string, string> {
  return { [LABEL_APP_NAME]: 'nginx', [LABEL_NGINX]: nginxName };
}

export function selectorString(nginxName: string): string {
  return Object.entries(podSelector(nginxName))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
}

/**
 * The owner reference that makes `nginx` a pod's controller. `blockOwnerDeletion` keeps the Nginx (with
 * foreground deletion) until the garbage collector has removed the pod; setting it needs `update` on
 * `nginxes/finalizers` where the OwnerReferencesPermissionEnforcement admission plugin runs.
 */
export function controllerReference(nginx: Nginx): V1OwnerReference {
  const { name, uid } = nginx.metadata;
  return {
    apiVersion: NGINX_API_VERSION,
    kind: NGINX_KIND,
    name: name!,
    uid: uid!,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/**
 * A new pod for `nginx`: a server-generated name after the Nginx's (no process-local counter to collide after a
 * restart), our labels, and a controller owner reference that blocks the owner's deletion until the garbage
 * collector has removed the pod.
 */
export function podFor(nginx: Nginx): V1Pod {
  const { name, namespace } = nginx.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${name}-`,
      namespace,
      labels: { ...podSelector(name!), [LABEL_MANAGED_BY]: MANAGED_BY },
      ownerReferences: [controllerReference(nginx)],
    },
    spec: {
      containers: [
        {
          name: 'nginx',
          image: nginx.spec.image || DEFAULT_IMAGE,
          ports: [{ name: 'http', containerPort: 80 }],
        },
      ],
    },
  };
}
