import type { V1ObjectMeta } from '@kubernetes/client-node';

/** A count (`2`) or a percentage of spec.replicas (`"25%"`), as a Deployment's rollout bounds take it. */
export type IntOrPercent = number | string;

/** Resource amounts as Kubernetes quantities (`50m`, `64Mi`); integers are whole units. */
export interface NginxResourceList {
  cpu?: IntOrPercent;
  memory?: IntOrPercent;
  'ephemeral-storage'?: IntOrPercent;
}

export interface NginxResources {
  requests?: NginxResourceList;
  limits?: NginxResourceList;
}

export type NginxServiceType = 'ClusterIP' | 'NodePort' | 'LoadBalancer';

/** The Service the controller keeps for the Nginx: it selects the pods of every revision. */
export interface NginxServiceSpec {
  /** Default ClusterIP. */
  type?: NginxServiceType;
  /** The Service's port, forwarded to spec.port; default 80. */
  port?: number;
  /** For NodePort and LoadBalancer: the node port to ask for (the API server picks one when absent). */
  nodePort?: number;
}

export interface NginxRollingUpdate {
  /** Pods above spec.replicas a rollout may create (rounded up from a percentage); default 25%. */
  maxSurge?: IntOrPercent;
  /** Pods below spec.replicas that may be unavailable (rounded down from a percentage); default 25%. */
  maxUnavailable?: IntOrPercent;
}

export interface NginxStrategy {
  /** Default RollingUpdate. */
  type?: 'RollingUpdate' | 'Recreate';
  rollingUpdate?: NginxRollingUpdate;
}

/** An owned policy/v1 PodDisruptionBudget: exactly one of the two. */
export interface NginxDisruptionBudget {
  minAvailable?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
}

export interface NginxSpec {
  /** How many nginx pods to run (0 to MAX_REPLICAS). */
  replicas: number;
  /** Container image; defaults to nginx:latest. */
  image?: string;
  /** The container's port; default 80. */
  port?: number;
  /** nginx server configuration mounted as /etc/nginx/conf.d/default.conf (at most 256 KiB). */
  config?: string;
  /** When set, pods are ready once GET of this path on spec.port answers 2xx or 3xx. */
  healthCheckPath?: string;
  resources?: NginxResources;
  /** The PriorityClass of every pod (the scheduler's order and preemption); the cluster's default when unset. */
  priorityClassName?: string;
  service?: NginxServiceSpec;
  strategy?: NginxStrategy;
  /** Seconds a new pod must be ready before it counts as available; default 0. */
  minReadySeconds?: number;
  /** Seconds a rollout may go without progress before Progressing turns False; default 600. */
  progressDeadlineSeconds?: number;
  /** Old revisions kept for rollback; default 10. */
  revisionHistoryLimit?: number;
  /** When true, changes to the pod template do not roll out (scaling still does). */
  paused?: boolean;
  disruptionBudget?: NginxDisruptionBudget;
}

/** A standard metav1.Condition, plus the last time the condition was refreshed (the rollout's last progress). */
export interface NginxCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  observedGeneration?: number;
  lastTransitionTime: string;
  /** Progressing only: when the rollout last made progress (the progress deadline counts from it). */
  lastUpdateTime?: string;
  reason: string;
  message: string;
}

export interface NginxServiceStatus {
  name?: string;
  clusterIP?: string;
  /** Addresses of the Service's EndpointSlices that are ready. */
  readyEndpoints?: number;
}

/** The owned PodDisruptionBudget as its status stands (kube's disruption controller computes these). */
export interface NginxDisruptionBudgetStatus {
  name?: string;
  /** How many pods may be evicted right now without going below the budget. */
  disruptionsAllowed?: number;
  /** Pods of the Nginx that are healthy (ready) now. */
  currentHealthy?: number;
  /** The fewest healthy pods the budget allows. */
  desiredHealthy?: number;
}

export interface NginxStatus {
  replicas?: number;
  /** Pods of the update revision (the current spec's template). */
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  observedGeneration?: number;
  /** The revision whose pods were all there and available last (the rollout's starting point). */
  currentRevision?: string;
  /** The revision of the current spec's pod template: what a rollout moves every pod to. */
  updateRevision?: string;
  service?: NginxServiceStatus;
  /** The owned PodDisruptionBudget, when spec.disruptionBudget is set and kube has computed its status. */
  disruptionBudget?: NginxDisruptionBudgetStatus;
  /** A short human sentence about the state, e.g. "2 of 3 pods ready". */
  message?: string;
  conditions?: NginxCondition[];
  /** Label selector of the pods, as a string (for the scale subresource). */
  selector?: string;
}

export interface Nginx {
  apiVersion: 'mycompany.com/v1';
  kind: 'Nginx';
  metadata: V1ObjectMeta;
  spec: NginxSpec;
  status?: NginxStatus;
}
