import type { V1Pod } from '@kubernetes/client-node';
import type { KubeObject } from '../../libs/kube-runtime/src/index.js';
import { LABEL_NGINX } from '../../libs/nginx-api/src/index.js';
import { NGINX, type WorkloadKind } from '../convergence/workload.js';
import type { RollingStrategy } from './bounds.js';

/** An Nginx or a Deployment as the rollout reads it: its spec's generation and the Deployment-style status. */
export type RolloutOwner = KubeObject & {
  status?: {
    replicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    /** A number, but a string on Argo Rollouts' Rollout. */
    observedGeneration?: number | string;
  };
};

/** What differs between the two sides of the rollout bench: the object, its image change, and its pods' owner. */
export interface RolloutKind extends WorkloadKind {
  /** The controller that rolls it, as the results name it. */
  controller: string;
  /** The API version of the object (default v1). */
  version?: string;
  /** How the results name its strategy, when not by its RollingStrategy's bounds alone. */
  strategyText?: (strategy: RollingStrategy) => string;
  /** `replicas` pods of `image`, rolled with `strategy`. */
  rolloutManifest: (name: string, replicas: number, image: string, strategy: RollingStrategy) => unknown;
  /** The merge patch that changes the image. */
  imagePatch: (image: string) => unknown;
  /** The name of the object a pod belongs to (from a label its controller or template puts on every pod). */
  objectOf: (pod: V1Pod) => string | undefined;
}

const rollingUpdate = (strategy: RollingStrategy) => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxSurge: strategy.maxSurge, maxUnavailable: strategy.maxUnavailable },
});

export const NGINX_ROLLOUT: RolloutKind = {
  ...NGINX,
  controller: 'Nginx controller (ours)',
  rolloutManifest: (name, replicas, image, strategy) => ({
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name },
    spec: { replicas, image, strategy: rollingUpdate(strategy) },
  }),
  imagePatch: (image) => ({ spec: { image } }),
  objectOf: (pod) => pod.metadata?.labels?.[LABEL_NGINX],
};

/** The label the Deployments' pod template puts on every pod: the Deployment's name. */
export const OWNER_LABEL = 'owner';

const deployment = (name: string, replicas: number, image: string, strategy?: RollingStrategy) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'bench', [OWNER_LABEL]: name } },
    ...(strategy ? { strategy: rollingUpdate(strategy) } : {}),
    template: {
      metadata: { labels: { app: 'bench', [OWNER_LABEL]: name } },
      spec: { containers: [{ name: 'nginx', image, ports: [{ name: 'http', containerPort: 80 }] }] },
    },
  },
});

export const DEPLOYMENT_ROLLOUT: RolloutKind = {
  kind: 'Deployment',
  group: 'apps',
  plural: 'deployments',
  collection: (ns) => `/apis/apps/v1/namespaces/${ns}/deployments`,
  manifest: (name, replicas) => deployment(name, replicas, 'nginx:latest'),
  controller: 'Deployment + ReplicaSet controllers (kube-controller-manager)',
  rolloutManifest: deployment,
  // A strategic merge patch would merge the containers list by name; a merge patch replaces it, so name the
  // whole container.
  imagePatch: (image) => ({
    spec: {
      template: {
        spec: { containers: [{ name: 'nginx', image, ports: [{ name: 'http', containerPort: 80 }] }] },
      },
    },
  }),
  objectOf: (pod) => pod.metadata?.labels?.[OWNER_LABEL],
};

/** The image a pod runs (its only container's). */
export const imageOf = (pod: V1Pod) => pod.spec?.containers?.[0]?.image;

/**
 * Whether the status of `owner` reports the rollout done: every one of `replicas` pods updated and available, no
 * other pod, and the status written for the spec's generation `generation` (the one the image patch made) or a
 * later one. Nginx and Deployment statuses have these fields and this meaning alike.
 */
export function statusRolledOut(owner: RolloutOwner, replicas: number, generation: number): boolean {
  const status = owner.status ?? {};
  return (
    Number(status.observedGeneration ?? 0) >= generation &&
    status.updatedReplicas === replicas &&
    status.availableReplicas === replicas &&
    status.replicas === replicas
  );
}
