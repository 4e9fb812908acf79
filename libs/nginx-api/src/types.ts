// Types only: this module is also bundled for the browser, and `import type` leaves nothing of the client there.
import type { V1Affinity, V1ObjectMeta, V1TopologySpreadConstraint } from '@kubernetes/client-node';

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

/** One step of a canary: exactly one of the three. */
export interface NginxCanaryStep {
  /** Share of spec.replicas on the new revision, 0–100 (rounded up, at least 1 pod when above 0). */
  setWeight?: number;
  /** Wait: `{duration: "60s"}` (s, m or h), or `{}` until a promote. */
  pause?: { duration?: string };
  /** Run the named entry of spec.analysis; a failed run aborts the canary. */
  analysis?: { templateName: string };
}

export interface NginxCanaryStrategy {
  steps?: NginxCanaryStep[];
  /** Bounds inside each step, as for RollingUpdate; default 25%. */
  maxSurge?: IntOrPercent;
  /** Default 0: a canary step adds pods before it takes any away. */
  maxUnavailable?: IntOrPercent;
}

export interface NginxStrategy {
  /** Default RollingUpdate. */
  type?: 'RollingUpdate' | 'Recreate' | 'Canary';
  rollingUpdate?: NginxRollingUpdate;
  /** Type Canary only. */
  canary?: NginxCanaryStrategy;
}

/** A Prometheus instant query; `{{name}}`, `{{namespace}}` and `{{revision}}` are replaced before it is sent. */
export interface NginxPrometheusQuery {
  /** Base URL of the Prometheus HTTP API, e.g. http://prometheus:9090. */
  address: string;
  query: string;
}

/** A named analysis a canary step can run: `count` measurements, `interval` apart. */
export interface NginxAnalysisTemplate {
  name: string;
  prometheus: NginxPrometheusQuery;
  /** An expression of `result` (the query's scalar), e.g. `result < 0.01`: a measurement meeting it succeeds. */
  successCondition: string;
  /** When set and met, the measurement fails (otherwise: failing successCondition fails it). */
  failureCondition?: string;
  /** Between measurements; default 30s. */
  interval?: string;
  /** Measurements in one run; default 1. */
  count?: number;
  /** Failed measurements tolerated: one more fails the run; default 0. */
  failureLimit?: number;
  /** Inconclusive measurements (Prometheus unreachable) tolerated before the run is Inconclusive; default 0. */
  inconclusiveLimit?: number;
}

/** An owned policy/v1 PodDisruptionBudget: exactly one of the two. */
export interface NginxDisruptionBudget {
  minAvailable?: IntOrPercent;
  maxUnavailable?: IntOrPercent;
}

/** A core/v1 Toleration, with the operators and effects the schema admits. */
export interface NginxToleration {
  /** The taint key (empty with operator Exists: every taint). */
  key?: string;
  /** Default Equal; Exists takes no value. */
  operator?: 'Exists' | 'Equal';
  value?: string;
  /** Empty: every effect. */
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  /** Effect NoExecute only: how long the pod stays on a node after the taint appears (unset: for ever). */
  tolerationSeconds?: number;
}

// --- TLS and Ingress (issue 34) ---

/** A kubernetes.io/tls Secret every pod mounts: the pods' nginx also listens on 443 with its certificate. */
export interface NginxTls {
  /** The Secret's name, in the Nginx's namespace; its `tls.crt` and `tls.key` are mounted. */
  secretName: string;
}

/** An owned networking.k8s.io/v1 Ingress to the owned Service (spec.service must be set). */
export interface NginxIngress {
  /** The IngressClass; the cluster's default class when unset. */
  className?: string;
  /** The one host routed, a DNS name or a wildcard `*.example.com`. */
  host: string;
  /** When true (needs spec.tls): the Ingress terminates TLS for the host with spec.tls.secretName. */
  tls?: boolean;
  /** The path prefix routed; default "/". */
  path?: string;
}

// --- end TLS and Ingress ---

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
  /** Labels a node must have for every pod to run there (a pod's nodeSelector). */
  nodeSelector?: Record<string, string>;
  /** Taints every pod tolerates. */
  tolerations?: NginxToleration[];
  /** core/v1 Affinity of every pod: node affinity, pod affinity and anti-affinity. */
  affinity?: V1Affinity;
  /**
   * How pods spread over topology domains. Unset: the controller's default, soft spreading over nodes (see
   * defaultTopologySpread in apps/api's pod builder); `[]` means none.
   */
  topologySpreadConstraints?: V1TopologySpreadConstraint[];
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
  /** Named analyses the canary steps run. */
  analysis?: NginxAnalysisTemplate[];
  /**
   * A failed analysis or an exceeded progress deadline sends every pod back to the last complete revision
   * (status.currentRevision); the spec is left as written, and the status says so until the spec changes.
   */
  rollbackOnFailure?: boolean;
  // --- TLS and Ingress (issue 34) ---
  /** A TLS Secret mounted into every pod; nginx listens on 443 with it (a pod template field). */
  tls?: NginxTls;
  /** An owned Ingress routing `host` to the owned Service. */
  ingress?: NginxIngress;
  // --- end TLS and Ingress ---
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

/** The owned Ingress as it stands: its name and the addresses its controller published, if any. */
export interface NginxIngressStatus {
  name?: string;
  /** status.loadBalancer.ingress of the Ingress: each an IP or a hostname. */
  addresses?: string[];
}

export type NginxMeasurementPhase = 'Successful' | 'Failed' | 'Inconclusive' | 'Error';

/** One measurement of an analysis run: the query as sent, what came back, and the verdict. */
export interface NginxAnalysisMeasurement {
  /** RFC 3339. */
  at: string;
  query: string;
  value?: number;
  phase: NginxMeasurementPhase;
  /** Why, when not Successful (Prometheus unreachable, no data, a vector where a scalar was expected …). */
  message?: string;
}

/** A run of an analysis template at one canary step. */
export interface NginxAnalysisRun {
  /** `<revision>-<step>-<templateName>`: a rollback names it. */
  name: string;
  templateName: string;
  /** Index into spec.strategy.canary.steps of the step it gates. */
  step: number;
  phase: 'Running' | NginxMeasurementPhase;
  startedAt: string;
  measurements: NginxAnalysisMeasurement[];
}

export type NginxCanaryPhase = 'Progressing' | 'Paused' | 'Promoted' | 'Aborted';

export interface NginxCanaryStatus {
  /** The update revision this canary moves to. */
  revision: string;
  /** Index of the step being carried out (steps.length once past the last). */
  step: number;
  /** Share of pods the current step puts on the new revision. */
  weight: number;
  phase: NginxCanaryPhase;
  /** When the current step began (a pause counts from it). */
  stepStartedAt?: string;
  /** Why it is Paused or Aborted, in a sentence. */
  message?: string;
  /** The run that aborted it, when one did. */
  abortedBy?: string;
  analysisRuns?: NginxAnalysisRun[];
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
  /** The owned Ingress, when spec.ingress is set. */
  ingress?: NginxIngressStatus;
  /** A short human sentence about the state, e.g. "2 of 3 pods ready". */
  message?: string;
  conditions?: NginxCondition[];
  /** Label selector of the pods, as a string (for the scale subresource). */
  selector?: string;
  /** Strategy Canary: where the canary of the update revision stands. */
  canary?: NginxCanaryStatus;
}

export interface Nginx {
  apiVersion: 'mycompany.com/v1';
  kind: 'Nginx';
  metadata: V1ObjectMeta;
  spec: NginxSpec;
  status?: NginxStatus;
}
