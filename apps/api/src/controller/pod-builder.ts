import type {
  V1ConfigMap,
  V1ObjectMeta,
  V1OwnerReference,
  V1Probe,
  V1ResourceRequirements,
  V1Pod,
  V1PodSecurityContext,
  V1SecurityContext,
  V1TopologySpreadConstraint,
  V1Volume,
  V1VolumeMount,
} from '@kubernetes/client-node';
import {
  DEFAULT_PORT,
  ANNOTATION_RESTARTED_AT,
  LABEL_APP_NAME,
  LABEL_MANAGED_BY,
  LABEL_NGINX,
  LABEL_REVISION,
  NGINX_API_VERSION,
  MANAGED_BY,
  NGINX_KIND,
  configFilesDigestText,
  mountedConfigFiles,
  shortHash,
  TLS_MOUNT_PATH,
  TLS_PORT,
  type Nginx,
  type NginxPodTemplate,
} from '@ngx/nginx-api';

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
 * profile. Port 80 (or spec.port, when lower) as a non-root user needs the sysctl, not NET_BIND_SERVICE: Kubernetes sets no ambient
 * capabilities, so added ones are lost when a non-root process starts (and no_new_privs keeps file capabilities
 * out), whereas ip_unprivileged_port_start is a namespaced sysctl the profile allows, for this pod's network alone.
 */
function podSecurity(port: number): V1PodSecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: NGINX_USER_ID,
    runAsGroup: NGINX_USER_ID,
    seccompProfile: { type: 'RuntimeDefault' },
    sysctls: [{ name: 'net.ipv4.ip_unprivileged_port_start', value: String(Math.min(port, DEFAULT_PORT)) }],
  };
}

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
 * The name of the immutable ConfigMap holding `files` (see mountedConfigFiles): after the Nginx and the files'
 * hash, so equal configs share it.
 */
export function configMapName(nginxName: string, files: Record<string, string>): string {
  return `${nginxName}-config-${shortHash(configFilesDigestText(files))}`;
}

const CONFIG_VOLUME = 'nginx-config';
const TLS_VOLUME = 'nginx-tls';

/**
 * The ConfigMap a pod of `template` mounts, or undefined when it mounts none: immutable (a new config is a new
 * ConfigMap, so pods of older revisions keep theirs and a rollback finds it still there), owned by the Nginx.
 */
export function configMapFor(nginx: Nginx, template: NginxPodTemplate): V1ConfigMap | undefined {
  const files = mountedConfigFiles(template);
  if (files === undefined) return undefined;
  const { name, namespace } = nginx.metadata;
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: configMapName(name!, files),
      namespace,
      labels: { ...podSelector(name!), [LABEL_MANAGED_BY]: MANAGED_BY },
      ownerReferences: [{ ...controllerReference(nginx), blockOwnerDeletion: false }],
    },
    immutable: true,
    data: files,
  };
}

function readinessProbe(template: NginxPodTemplate): V1Probe | undefined {
  if (template.healthCheckPath === undefined) return undefined;
  return {
    httpGet: { path: template.healthCheckPath, port: template.port },
    periodSeconds: 5,
    failureThreshold: 3,
  };
}

function resourcesOf(template: NginxPodTemplate): V1ResourceRequirements | undefined {
  const { requests, limits } = template.resources ?? {};
  if (!requests && !limits) return undefined;
  const text = (list: Record<string, unknown> | undefined) =>
    list && Object.fromEntries(Object.entries(list).map(([key, value]) => [key, String(value)]));
  return {
    ...(requests ? { requests: text(requests as Record<string, unknown>) } : {}),
    ...(limits ? { limits: text(limits as Record<string, unknown>) } : {}),
  };
}

/**
 * The spread a pod gets when spec.topologySpreadConstraints is unset: soft spreading of the Nginx's pods of one
 * revision over nodes, as kube-scheduler's own default (maxSkew 3) does for a Deployment's, which it groups by the
 * ReplicaSet's selector; it groups ours only through a Service, and an Nginx without spec.service has none.
 * ScheduleAnyway: a preference, never a pod left Pending. matchLabelKeys adds the pod's revision to the selector
 * (the API server writes it into labelSelector when it creates the pod), so a rollout's new pods spread among
 * themselves. Applied here and not in the template, so the default is not part of any revision: Nginxes made
 * before it existed keep their revisions and are not rolled by an upgrade that adds it.
 */
export function defaultTopologySpread(nginxName: string): V1TopologySpreadConstraint[] {
  return [
    {
      maxSkew: 1,
      topologyKey: 'kubernetes.io/hostname',
      whenUnsatisfiable: 'ScheduleAnyway',
      labelSelector: { matchLabels: podSelector(nginxName) },
      matchLabelKeys: [LABEL_REVISION],
    },
  ];
}

/** The template's scheduling fields as a pod spec's, the default spread filled in (`[]`: none). */
function scheduling(nginxName: string, template: NginxPodTemplate) {
  const spread = template.topologySpreadConstraints ?? defaultTopologySpread(nginxName);
  return structuredClone({
    ...(template.priorityClassName !== undefined ? { priorityClassName: template.priorityClassName } : {}),
    ...(template.nodeSelector !== undefined ? { nodeSelector: template.nodeSelector } : {}),
    ...(template.tolerations !== undefined ? { tolerations: template.tolerations } : {}),
    ...(template.affinity !== undefined ? { affinity: template.affinity } : {}),
    ...(spread.length ? { topologySpreadConstraints: spread } : {}),
  });
}

/**
 * A new pod for `nginx` running `template` (whose hash is `revision`): a server-generated name after the Nginx's
 * (no process-local counter to collide after a restart), our labels and the revision's, and a controller owner reference that blocks the owner's deletion until the garbage
 * collector has removed the pod. It passes the Pod Security Standard `restricted` profile and gets no
 * ServiceAccount token: whatever image an editor names runs as an unprivileged user with no access to the API.
 * Each call builds new objects (nothing shared between pods to mutate).
 */
export function podFor(nginx: Nginx, template: NginxPodTemplate, revision: string): V1Pod {
  const name = nginx.metadata.name!;
  const files = mountedConfigFiles(template);
  const tls = template.tls;
  const probe = readinessProbe(template);
  const resources = resourcesOf(template);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: newPodMetadata(
      nginx,
      { ...podSelector(name), [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_REVISION]: revision },
      template.restartedAt !== undefined ? { [ANNOTATION_RESTARTED_AT]: template.restartedAt } : undefined,
    ),
    spec: {
      automountServiceAccountToken: false,
      ...scheduling(name, template),
      securityContext: podSecurity(template.port),
      containers: [
        {
          name: 'nginx',
          image: template.image,
          ports: [
            { name: 'http', containerPort: template.port },
            ...(tls ? [{ name: 'https', containerPort: TLS_PORT }] : []),
          ],
          securityContext: structuredClone(CONTAINER_SECURITY),
          ...(probe ? { readinessProbe: probe } : {}),
          ...(resources ? { resources } : {}),
          volumeMounts: [
            ...structuredClone(WRITABLE_DIRECTORIES),
            ...(files !== undefined
              ? [{ name: CONFIG_VOLUME, mountPath: '/etc/nginx/conf.d', readOnly: true }]
              : []),
            ...(tls ? [{ name: TLS_VOLUME, mountPath: TLS_MOUNT_PATH, readOnly: true }] : []),
          ],
        },
      ],
      volumes: [
        ...structuredClone(WRITABLE_VOLUMES),
        ...(files !== undefined
          ? [
              {
                name: CONFIG_VOLUME,
                configMap: {
                  name: configMapName(name!, files),
                  items: Object.keys(files).map((key) => ({ key, path: key })),
                },
              },
            ]
          : []),
        // Not optional: a pod never starts without its certificate (the controller checks the Secret first).
        ...(tls
          ? [
              {
                name: TLS_VOLUME,
                secret: {
                  secretName: tls.secretName,
                  optional: false,
                  items: [
                    { key: 'tls.crt', path: 'tls.crt' },
                    { key: 'tls.key', path: 'tls.key' },
                  ],
                },
              },
            ]
          : []),
      ],
    },
  };
}

/**
 * A new pod for `nginx` that runs what `model` runs (a pod of an older revision, copied while the Nginx is paused):
 * its labels and spec, without what the scheduler and the kubelet filled in for that one pod.
 */
export function podLike(nginx: Nginx, model: V1Pod): V1Pod {
  const spec = structuredClone(model.spec!);
  delete spec.nodeName;
  spec.topologySpreadConstraints?.forEach(unmergeLabelKeys);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: newPodMetadata(
      nginx,
      { ...model.metadata?.labels },
      model.metadata?.annotations?.[ANNOTATION_RESTARTED_AT] !== undefined
        ? { [ANNOTATION_RESTARTED_AT]: model.metadata.annotations[ANNOTATION_RESTARTED_AT] }
        : undefined,
    ),
    spec,
  };
}

/**
 * Undoes what the API server did to a spread constraint when it created a pod: it adds `key In [value]` to
 * labelSelector for each of matchLabelKeys, and refuses a new pod whose labelSelector already has a key of
 * matchLabelKeys.
 */
function unmergeLabelKeys(constraint: V1TopologySpreadConstraint): void {
  const keys = new Set(constraint.matchLabelKeys ?? []);
  const expressions = constraint.labelSelector?.matchExpressions;
  if (!keys.size || !expressions) return;
  const kept = expressions.filter((e) => !(keys.has(e.key) && e.operator === 'In'));
  if (kept.length) constraint.labelSelector!.matchExpressions = kept;
  else delete constraint.labelSelector!.matchExpressions;
}

/**
 * A new pod's metadata: a name generated after the Nginx's, `labels`, `annotations` when there are some, and the
 * Nginx as its controller.
 */
function newPodMetadata(
  nginx: Nginx,
  labels: Record<string, string>,
  annotations?: Record<string, string>,
): V1ObjectMeta {
  const { name, namespace } = nginx.metadata;
  return {
    generateName: `${name}-`,
    namespace,
    labels,
    ...(annotations ? { annotations } : {}),
    ownerReferences: [controllerReference(nginx)],
  };
}
