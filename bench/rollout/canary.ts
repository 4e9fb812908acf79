import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_NGINX } from '../../libs/nginx-api/src/index.js';
import { NGINX } from '../convergence/workload.js';
import type { RollingStrategy } from './bounds.js';
import { OWNER_LABEL, type RolloutKind } from './kinds.js';

// The canary row: the same two-step canary (setWeight 50, a timed pause, then the end: 100%) on our Nginx and on
// Argo Rollouts' Rollout, with the same bounds inside each step (maxSurge / maxUnavailable).

/** The pause between the two steps, part of both sides' time. */
export const CANARY_PAUSE_SECONDS = 10;

/** Both sides spell the steps alike: setWeight 50, then a pause of `pauseSeconds`; the end of the steps is 100%. */
export const canarySteps = (pauseSeconds: number) => [
  { setWeight: 50 },
  { pause: { duration: `${pauseSeconds}s` } },
];

/** How the results name a canary of `canarySteps(pauseSeconds)` with `strategy`'s bounds. */
export const canaryLabel = (strategy: RollingStrategy, pauseSeconds = CANARY_PAUSE_SECONDS) =>
  `Canary 50% → pause ${pauseSeconds}s → 100% (maxSurge ${strategy.maxSurge} / maxUnavailable ${strategy.maxUnavailable})`;

const canaryBounds = (strategy: RollingStrategy) => ({
  maxSurge: strategy.maxSurge,
  maxUnavailable: strategy.maxUnavailable,
});

export const NGINX_CANARY: RolloutKind = {
  ...NGINX,
  controller: 'Nginx controller (ours)',
  strategyText: (strategy) => canaryLabel(strategy),
  rolloutManifest: (name, replicas, image, strategy) => ({
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name },
    spec: {
      replicas,
      image,
      strategy: {
        type: 'Canary',
        canary: { steps: canarySteps(CANARY_PAUSE_SECONDS), ...canaryBounds(strategy) },
      },
    },
  }),
  imagePatch: (image) => ({ spec: { image } }),
  objectOf: (pod: V1Pod) => pod.metadata?.labels?.[LABEL_NGINX],
};

const container = (image: string) => ({
  name: 'nginx',
  image,
  ports: [{ name: 'http', containerPort: 80 }],
});

/** Argo Rollouts' Rollout (argoproj.io/v1alpha1): its ReplicaSets are kube-controller-manager's to fill. */
export const ARGO_CANARY: RolloutKind = {
  kind: 'Rollout',
  group: 'argoproj.io',
  version: 'v1alpha1',
  plural: 'rollouts',
  collection: (ns) => `/apis/argoproj.io/v1alpha1/namespaces/${ns}/rollouts`,
  manifest: (name, replicas) =>
    ARGO_CANARY.rolloutManifest(name, replicas, 'nginx:latest', {
      maxSurge: '25%',
      maxUnavailable: 0,
    }),
  controller: 'Argo Rollouts controller (+ kube-controller-manager for its ReplicaSets)',
  strategyText: (strategy) => canaryLabel(strategy),
  rolloutManifest: (name, replicas, image, strategy) => ({
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'bench', [OWNER_LABEL]: name } },
      template: {
        metadata: { labels: { app: 'bench', [OWNER_LABEL]: name } },
        spec: { containers: [container(image)] },
      },
      strategy: { canary: { steps: canarySteps(CANARY_PAUSE_SECONDS), ...canaryBounds(strategy) } },
    },
  }),
  // A merge patch replaces the containers list: name the whole container.
  imagePatch: (image) => ({ spec: { template: { spec: { containers: [container(image)] } } } }),
  objectOf: (pod) => pod.metadata?.labels?.[OWNER_LABEL],
};
