import type {
  V1ConfigMap,
  V1ControllerRevision,
  V1EndpointSlice,
  V1Ingress,
  V1Pod,
  V1PodDisruptionBudget,
  V1Service,
} from '@kubernetes/client-node';
import {
  DEFAULT_PORT,
  DEFAULT_REVISION_HISTORY_LIMIT,
  DEFAULT_INGRESS_PATH,
  DEFAULT_SERVICE_PORT,
  LABEL_MANAGED_BY,
  LABEL_REVISION,
  MANAGED_BY,
  TLS_PORT,
  controllerRevisionName,
  mountedConfigFiles,
  type Nginx,
  type NginxPodTemplate,
  type NginxDisruptionBudgetStatus,
  type NginxIngressStatus,
  type NginxRevisionData,
  type NginxServiceStatus,
} from '@ngx/nginx-api';
import { isActive } from './pod-plan.js';
import { configMapName, controllerReference, podSelector } from './pod-builder.js';

/** The labels of everything the controller makes for `nginx` besides pods: the pods' selector and ours. */
export function ownedLabels(nginx: Nginx): Record<string, string> {
  return { ...podSelector(nginx.metadata.name!), [LABEL_MANAGED_BY]: MANAGED_BY };
}

/** Whether `object` is controlled by this Nginx (by uid: a namesake made later is another Nginx). */
export function controlledBy(
  object: { metadata?: { ownerReferences?: { controller?: boolean; uid: string }[] } },
  nginx: Nginx,
): boolean {
  return (
    object.metadata?.ownerReferences?.some((ref) => ref.controller && ref.uid === nginx.metadata.uid) ?? false
  );
}

/** The ControllerRevision recording `template` (hash `revision`) as number `number`. */
export function controllerRevisionFor(
  nginx: Nginx,
  template: NginxPodTemplate,
  revision: string,
  number: number,
): V1ControllerRevision {
  const data: NginxRevisionData = { template };
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName(nginx.metadata.name!, revision),
      namespace: nginx.metadata.namespace,
      labels: { ...ownedLabels(nginx), [LABEL_REVISION]: revision },
      ownerReferences: [{ ...controllerReference(nginx), blockOwnerDeletion: false }],
    },
    revision: number,
    data,
  };
}

export interface HistoryPlan {
  /** A ControllerRevision to create for the update revision. */
  create?: V1ControllerRevision;
  /** The update revision's existing ControllerRevision, to renumber as the newest (a rollback to it). */
  renumber?: { revision: V1ControllerRevision; number: number };
  /** Old ControllerRevisions beyond spec.revisionHistoryLimit, oldest first. */
  prune: V1ControllerRevision[];
  /** ConfigMaps no kept revision and no pod uses any more. */
  pruneConfigMaps: V1ConfigMap[];
}

const revisionLabel = (object: { metadata?: { labels?: Record<string, string> } }) =>
  object.metadata?.labels?.[LABEL_REVISION];

/**
 * What keeps the Nginx's revision history right, as the Deployment controller keeps its ReplicaSets: one
 * ControllerRevision per revision, numbered in the order revisions were rolled out to (rolling back to an old one
 * makes it the newest), the update revision recorded once its rollout may start (not while paused before any pod
 * runs it), and at most spec.revisionHistoryLimit old ones kept — never one whose pods still run. A ConfigMap is
 * deleted once no kept revision and no pod mounts it.
 */
export function planHistory(input: {
  nginx: Nginx;
  template: NginxPodTemplate;
  updateRevision: string;
  /** False when the template cannot run (invalid config): it is not recorded. */
  runnable?: boolean;
  revisions: readonly V1ControllerRevision[];
  configMaps: readonly V1ConfigMap[];
  pods: readonly V1Pod[];
}): HistoryPlan {
  const { nginx, template, updateRevision } = input;
  const revisions = input.revisions.filter((r) => controlledBy(r, nginx));
  const plan: HistoryPlan = { prune: [], pruneConfigMaps: [] };
  const newest = Math.max(0, ...revisions.map((r) => r.revision));
  const current = revisions.find((r) => revisionLabel(r) === updateRevision);
  const running = new Set(input.pods.filter(isActive).map(revisionLabel));
  const rolling = (input.runnable ?? true) && (!nginx.spec.paused || running.has(updateRevision));
  if (!current && rolling) plan.create = controllerRevisionFor(nginx, template, updateRevision, newest + 1);
  if (current && current.revision < newest && rolling)
    plan.renumber = { revision: current, number: newest + 1 };

  const limit = nginx.spec.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  const old = revisions
    .filter((r) => revisionLabel(r) !== updateRevision && !running.has(revisionLabel(r)))
    .sort((a, b) => a.revision - b.revision);
  plan.prune = old.slice(0, Math.max(0, old.length - limit));

  const pruned = new Set(plan.prune);
  const needed = new Set<string>();
  const need = (t: NginxPodTemplate | undefined) => {
    const files = t && mountedConfigFiles(t);
    if (files !== undefined) needed.add(configMapName(nginx.metadata.name!, files));
  };
  need(template);
  for (const r of revisions) if (!pruned.has(r)) need((r.data as NginxRevisionData | undefined)?.template);
  for (const pod of input.pods)
    for (const volume of pod.spec?.volumes ?? [])
      if (volume.configMap?.name) needed.add(volume.configMap.name);
  plan.pruneConfigMaps = input.configMaps.filter(
    (c) => controlledBy(c, nginx) && !needed.has(c.metadata!.name!),
  );
  return plan;
}

/**
 * The Service spec.service asks for: named after the Nginx, selecting the pods of every revision; port `http` to
 * spec.port, and with spec.tls also `https` 443 to the pods' 443.
 */
export function serviceFor(nginx: Nginx): V1Service | undefined {
  const wanted = nginx.spec.service;
  if (!wanted) return undefined;
  const type = wanted.type ?? 'ClusterIP';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: nginx.metadata.name,
      namespace: nginx.metadata.namespace,
      labels: ownedLabels(nginx),
      ownerReferences: [{ ...controllerReference(nginx), blockOwnerDeletion: false }],
    },
    spec: {
      type,
      selector: podSelector(nginx.metadata.name!),
      ports: [
        {
          name: 'http',
          protocol: 'TCP',
          port: wanted.port ?? DEFAULT_SERVICE_PORT,
          targetPort: nginx.spec.port ?? DEFAULT_PORT,
          ...(wanted.nodePort !== undefined && type !== 'ClusterIP' ? { nodePort: wanted.nodePort } : {}),
        },
        ...(nginx.spec.tls ? [{ name: 'https', protocol: 'TCP', port: TLS_PORT, targetPort: TLS_PORT }] : []),
      ],
    },
  };
}

/** The PodDisruptionBudget spec.disruptionBudget asks for, named after the Nginx, over every revision's pods. */
export function disruptionBudgetFor(nginx: Nginx): V1PodDisruptionBudget | undefined {
  const budget = nginx.spec.disruptionBudget;
  if (!budget) return undefined;
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      name: nginx.metadata.name,
      namespace: nginx.metadata.namespace,
      labels: ownedLabels(nginx),
      ownerReferences: [{ ...controllerReference(nginx), blockOwnerDeletion: false }],
    },
    spec: {
      selector: { matchLabels: podSelector(nginx.metadata.name!) },
      ...(budget.minAvailable !== undefined ? { minAvailable: budget.minAvailable } : {}),
      ...(budget.maxUnavailable !== undefined ? { maxUnavailable: budget.maxUnavailable } : {}),
    },
  };
}

/**
 * The budget's part of the status, once kube's disruption controller has computed it (its observedGeneration is
 * set); before that only its name.
 */
export function disruptionBudgetStatus(
  budget: V1PodDisruptionBudget | undefined,
): NginxDisruptionBudgetStatus | undefined {
  if (!budget) return undefined;
  const status = budget.status;
  return {
    name: budget.metadata!.name!,
    ...(status?.observedGeneration !== undefined
      ? {
          disruptionsAllowed: status.disruptionsAllowed,
          currentHealthy: status.currentHealthy,
          desiredHealthy: status.desiredHealthy,
        }
      : {}),
  };
}

/** The Service's part of the status: its cluster IP and the ready addresses of its EndpointSlices. */
export function serviceStatus(
  service: V1Service | undefined,
  slices: readonly V1EndpointSlice[],
): NginxServiceStatus | undefined {
  if (!service) return undefined;
  const name = service.metadata!.name!;
  const readyEndpoints = slices
    .filter((slice) => slice.metadata?.labels?.['kubernetes.io/service-name'] === name)
    .reduce(
      (sum, slice) =>
        sum +
        (slice.endpoints ?? [])
          .filter((endpoint) => endpoint.conditions?.ready !== false)
          .reduce((n, endpoint) => n + endpoint.addresses.length, 0),
      0,
    );
  return {
    name,
    ...(service.spec?.clusterIP ? { clusterIP: service.spec.clusterIP } : {}),
    readyEndpoints,
  };
}

// --- Ingress (issue 34) ---

/**
 * The Ingress spec.ingress asks for, named after the Nginx: one rule, host and path (Prefix) to the owned
 * Service's port, with TLS for the host from spec.tls's Secret when ingress.tls is true. Undefined without
 * spec.ingress, or without spec.service (validation refuses that; the Ingress would point at nothing).
 */
export function ingressFor(nginx: Nginx): V1Ingress | undefined {
  const wanted = nginx.spec.ingress;
  if (!wanted || !nginx.spec.service) return undefined;
  const name = nginx.metadata.name!;
  const secretName = wanted.tls ? nginx.spec.tls?.secretName : undefined;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      name,
      namespace: nginx.metadata.namespace,
      labels: ownedLabels(nginx),
      ownerReferences: [{ ...controllerReference(nginx), blockOwnerDeletion: false }],
    },
    spec: {
      ...(wanted.className ? { ingressClassName: wanted.className } : {}),
      rules: [
        {
          host: wanted.host,
          http: {
            paths: [
              {
                path: wanted.path ?? DEFAULT_INGRESS_PATH,
                pathType: 'Prefix',
                backend: {
                  service: { name, port: { number: nginx.spec.service.port ?? DEFAULT_SERVICE_PORT } },
                },
              },
            ],
          },
        },
      ],
      ...(secretName ? { tls: [{ hosts: [wanted.host], secretName }] } : {}),
    },
  };
}

/** The Ingress's part of the status: its name and the addresses its controller published. */
export function ingressStatus(ingress: V1Ingress | undefined): NginxIngressStatus | undefined {
  if (!ingress) return undefined;
  const addresses = (ingress.status?.loadBalancer?.ingress ?? [])
    .map((entry) => entry.ip ?? entry.hostname)
    .filter((address): address is string => Boolean(address));
  return { name: ingress.metadata!.name!, ...(addresses.length ? { addresses } : {}) };
}
