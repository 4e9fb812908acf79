import type {
  V1OwnerReference,
  V1Pod,
  V1PodSecurityContext,
  V1SecurityContext,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
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

/** The user and group the official nginx image runs its workers as (`nginx`, 101): every pod runs as them. */
export const NGINX_USER_ID = 101;

/**
 * The pod's part of the Pod Security Standard `restricted` profile: never root, the runtime's default seccomp
 * profile. Port 80 as a non-root user needs the sysctl, not NET_BIND_SERVICE: Kubernetes sets no ambient
 * capabilities, so added ones are lost when a non-root process starts (and no_new_privs keeps file capabilities
 * out), whereas ip_unprivileged_port_start is a namespaced sysctl the profile allows, for this pod's network alone.
 */
const POD_SECURITY: V1PodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: NGINX_USER_ID,
  runAsGroup: NGINX_USER_ID,
  seccompProfile: { type: 'RuntimeDefault' },
  sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: '80' }],
};

/** The container's part of the `restricted` profile: no privilege escalation, every capability dropped. */
const CONTAINER_SECURITY: V1SecurityContext = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
};

/**
 * Where the official image writes, owned by root in the image: its caches and temporary files, and its pid file
 * (/var/run links to /run there, so the mount lands on /run). Empty directories, writable by any user, instead.
 */
const WRITABLE_DIRECTORIES: V1VolumeMount[] = [
  { name: 'nginx-cache', mountPath: '/var/cache/nginx' },
  { name: 'nginx-run', mountPath: '/var/run' },
];
const WRITABLE_VOLUMES: V1Volume[] = WRITABLE_DIRECTORIES.map(({ name }) => ({ name, emptyDir: {} }));

/**
 * A new pod for `nginx`: a server-generated name after the Nginx's (no process-local counter to collide after a
 * restart), our labels, and a controller owner reference that blocks the owner's deletion until the garbage
 * collector has removed the pod. It passes the Pod Security Standard `restricted` profile and gets no
 * ServiceAccount token: whatever image an editor names runs as an unprivileged user with no access to the API.
 * Each call builds new objects (nothing shared between pods to mutate).
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
      automountServiceAccountToken: false,
      securityContext: structuredClone(POD_SECURITY),
      containers: [
        {
          name: 'nginx',
          image: nginx.spec.image || DEFAULT_IMAGE,
          ports: [{ name: 'http', containerPort: 80 }],
          securityContext: structuredClone(CONTAINER_SECURITY),
          volumeMounts: structuredClone(WRITABLE_DIRECTORIES),
        },
      ],
      volumes: structuredClone(WRITABLE_VOLUMES),
    },
  };
}
