import {
  DEFAULT_IMAGE,
  DEFAULT_PORT,
  DEFAULT_PROGRESS_DEADLINE_SECONDS,
  DEFAULT_REVISION_HISTORY_LIMIT,
  MAX_REPLICAS,
  MIN_REPLICAS,
} from './names.js';
import { DURATION_PATTERN } from './duration.js';
import { MAX_CONFIG_BYTES } from './nginx-config.js';
import {
  LABEL_KEYS_RULE,
  LABEL_VALUE_PATTERN,
  MAX_QUALIFIED_NAME,
  QUALIFIED_NAME_PATTERN,
  SPREAD_RULES,
  TOLERATION_RULES,
  celOnly,
} from './item-rules.js';
import { ANALYSIS_NAMED_RULE, TLS_INGRESS_RULES } from './spec-rules.js';
import { DNS_LABEL, DNS_SUBDOMAIN, INGRESS_HOST } from './dns-names.js';
import { SECRET_NOT_FOUND, TLS_MOUNT_PATH, TLS_PORT } from './tls.js';
import type { JsonSchema } from './json-schema.js';
import type { NginxSpec } from './types.js';

export type { JsonSchema, ValidationRule } from './json-schema.js';

const condition: JsonSchema = {
  type: 'object',
  description: 'A standard condition (metav1.Condition).',
  required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
  properties: {
    type: { type: 'string', description: 'Available, Progressing or ReplicaFailure.', maxLength: 316 },
    status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
    lastTransitionTime: { type: 'string', format: 'date-time' },
    lastUpdateTime: {
      type: 'string',
      format: 'date-time',
      description: 'Progressing: when the rollout last made progress.',
    },
    reason: {
      type: 'string',
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    },
    message: { type: 'string', maxLength: 32768 },
  },
};

/** An integer count or a percentage: `maxPercent` caps the percentage (at 100 where more makes no sense). */
const intOrPercent = (description: string, maxPercent?: 100): JsonSchema => ({
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  minimum: 0,
  pattern: maxPercent ? '^(100|[1-9]?[0-9])%$' : '^[0-9]+%$',
  description,
});

/** A non-negative Kubernetes quantity: `50m`, `64Mi`, `1.5`, `2e3`, or a whole number. */
export const QUANTITY_PATTERN =
  '^(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$';

const quantity = (description: string): JsonSchema => ({
  'x-kubernetes-int-or-string': true,
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  minimum: 0,
  pattern: QUANTITY_PATTERN,
  description,
});

const resourceList = (description: string): JsonSchema => ({
  type: 'object',
  description,
  properties: {
    cpu: quantity('CPU, in cores (`50m` is 0.05 of a core).'),
    memory: quantity('Memory, in bytes (`64Mi`).'),
    'ephemeral-storage': quantity('Local scratch space, in bytes.'),
  },
});

/** Whether `a >= b` for two quantities (CEL's quantity library), or true when either is absent. */
const notBelow = (a: string, b: string) =>
  `!has(self.${a}) || !has(self.${b}) || quantity(string(self.${a})).compareTo(quantity(string(self.${b}))) >= 0`;

const port = (description: string): JsonSchema => ({
  type: 'integer',
  format: 'int32',
  minimum: 1,
  maximum: 65535,
  description,
});

const count = (description: string): JsonSchema => ({
  type: 'integer',
  format: 'int32',
  minimum: 0,
  description,
});

/** A label key, taint key or topology key: a qualified name (`kubernetes.io/hostname`, `disktype`). */
const qualifiedKey = (description: string): JsonSchema => ({
  type: 'string',
  maxLength: MAX_QUALIFIED_NAME,
  pattern: QUALIFIED_NAME_PATTERN,
  description,
});

const labelValue = (description: string): JsonSchema => ({
  type: 'string',
  maxLength: 63,
  pattern: LABEL_VALUE_PATTERN,
  description,
});

/** A map of labels: qualified-name keys (a CEL rule: a structural schema cannot constrain keys) and label values. */
const labelMap = (description: string): JsonSchema => ({
  type: 'object',
  description,
  maxProperties: 64,
  additionalProperties: labelValue('A label value: at most 63 characters.'),
  'x-kubernetes-validations': celOnly([LABEL_KEYS_RULE]),
});

const list = (items: JsonSchema, maxItems: number, description?: string): JsonSchema => ({
  type: 'array',
  maxItems,
  items,
  ...(description ? { description } : {}),
});

const requirement = (operators: string[], valueLength: number, description: string): JsonSchema => ({
  type: 'object',
  description,
  required: ['key', 'operator'],
  properties: {
    key: qualifiedKey('The label key.'),
    operator: { type: 'string', enum: operators },
    values: list({ type: 'string', maxLength: valueLength }, 64, 'Empty for Exists and DoesNotExist.'),
  },
});

/** A metav1.LabelSelector: matchLabels and matchExpressions, ANDed. */
const labelSelector = (description: string): JsonSchema => ({
  type: 'object',
  description,
  properties: {
    matchLabels: labelMap('Labels a pod must have.'),
    matchExpressions: list(
      requirement(['In', 'NotIn', 'Exists', 'DoesNotExist'], 63, 'A label requirement.'),
      32,
    ),
  },
});

/** A core/v1 NodeSelectorTerm: its requirements ANDed. */
const nodeSelectorTerm: JsonSchema = {
  type: 'object',
  description: 'Requirements on a node, ANDed.',
  properties: {
    matchExpressions: list(
      requirement(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'], 253, "On the node's labels."),
      32,
    ),
    matchFields: list(
      requirement(['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'], 253, "On the node's fields."),
      32,
    ),
  },
};

const weight: JsonSchema = {
  type: 'integer',
  format: 'int32',
  minimum: 1,
  maximum: 100,
  description: "Added to a node's score when the term matches, 1 to 100.",
};

const stringKeys = (description: string): JsonSchema =>
  list({ type: 'string', maxLength: MAX_QUALIFIED_NAME }, 32, description);

/** A core/v1 PodAffinityTerm: pods matching the selector in the namespaces, on nodes of one topology domain. */
const podAffinityTerm: JsonSchema = {
  type: 'object',
  description: 'Pods matching labelSelector in namespaces, in the same topologyKey domain.',
  required: ['topologyKey'],
  properties: {
    labelSelector: labelSelector('The pods the term is about.'),
    namespaceSelector: labelSelector('Namespaces whose pods count; with namespaces, their union.'),
    namespaces: list(
      { type: 'string', maxLength: 63 },
      64,
      "Namespaces whose pods count; none: the pod's own.",
    ),
    topologyKey: { ...qualifiedKey('The node label whose values make the domains.'), minLength: 1 },
    matchLabelKeys: stringKeys('Labels of the incoming pod whose values are added to labelSelector.'),
    mismatchLabelKeys: stringKeys('Labels of the incoming pod whose values labelSelector must not match.'),
  },
};

const podAffinity = (description: string): JsonSchema => ({
  type: 'object',
  description,
  properties: {
    requiredDuringSchedulingIgnoredDuringExecution: list(podAffinityTerm, 32, 'Every term must hold.'),
    preferredDuringSchedulingIgnoredDuringExecution: list(
      {
        type: 'object',
        required: ['weight', 'podAffinityTerm'],
        properties: { weight, podAffinityTerm },
      },
      32,
      "Terms that add their weight to a node's score.",
    ),
  },
});

/** core/v1 Affinity, every field of it declared, so a mistake is refused when the Nginx is written. */
const affinity: JsonSchema = {
  type: 'object',
  description:
    'The core/v1 Affinity of every pod: nodeAffinity, podAffinity and podAntiAffinity, as in a pod spec.',
  properties: {
    nodeAffinity: {
      type: 'object',
      description: 'Nodes the pods must (required…) or should (preferred…) run on.',
      properties: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          type: 'object',
          required: ['nodeSelectorTerms'],
          properties: { nodeSelectorTerms: list(nodeSelectorTerm, 32, 'Terms ORed.') },
        },
        preferredDuringSchedulingIgnoredDuringExecution: list(
          {
            type: 'object',
            required: ['weight', 'preference'],
            properties: { weight, preference: nodeSelectorTerm },
          },
          32,
        ),
      },
    },
    podAffinity: podAffinity('Run near pods matching the terms.'),
    podAntiAffinity: podAffinity('Run away from pods matching the terms.'),
  },
};

const toleration: JsonSchema = {
  type: 'object',
  description: 'A taint the pods tolerate (core/v1 Toleration).',
  properties: {
    key: {
      ...qualifiedKey('The taint key; empty with operator Exists: every taint.'),
      pattern: `^$|${QUALIFIED_NAME_PATTERN}`,
    },
    operator: { type: 'string', enum: ['Exists', 'Equal'], description: 'Defaults to Equal.' },
    value: labelValue('The taint value (Equal only).'),
    effect: {
      type: 'string',
      enum: ['NoSchedule', 'PreferNoSchedule', 'NoExecute'],
      description: 'The taint effect matched; unset: every effect.',
    },
    tolerationSeconds: {
      type: 'integer',
      format: 'int64',
      minimum: 0,
      description: 'NoExecute only: seconds the pod stays after the taint appears; unset: for ever.',
    },
  },
  'x-kubernetes-validations': celOnly(TOLERATION_RULES),
};

const topologySpreadConstraint: JsonSchema = {
  type: 'object',
  description: 'A core/v1 TopologySpreadConstraint.',
  required: ['maxSkew', 'topologyKey', 'whenUnsatisfiable'],
  properties: {
    maxSkew: {
      type: 'integer',
      format: 'int32',
      minimum: 1,
      description: 'The most pods one domain may run above the emptiest.',
    },
    topologyKey: { ...qualifiedKey('The node label whose values make the domains.'), minLength: 1 },
    whenUnsatisfiable: {
      type: 'string',
      enum: ['DoNotSchedule', 'ScheduleAnyway'],
      description: 'DoNotSchedule keeps a pod Pending rather than skew more; ScheduleAnyway only prefers.',
    },
    labelSelector: labelSelector('The pods counted in each domain.'),
    matchLabelKeys: stringKeys('Labels of the incoming pod whose values are added to labelSelector.'),
    minDomains: { type: 'integer', format: 'int32', minimum: 1 },
    nodeAffinityPolicy: { type: 'string', enum: ['Honor', 'Ignore'] },
    nodeTaintsPolicy: { type: 'string', enum: ['Honor', 'Ignore'] },
  },
  'x-kubernetes-validations': celOnly(SPREAD_RULES),
};

/** One schema for each of an object type's fields, no more and no fewer: `satisfies` it on a literal. */
export type PropertiesOf<T, S = JsonSchema> = { [K in keyof T]-?: S };

/** The schemas of the spec's fields: exactly NginxSpec's (the compiler holds the type and the schema together). */
const specProperties = {
  replicas: {
    type: 'integer',
    format: 'int32',
    minimum: MIN_REPLICAS,
    maximum: MAX_REPLICAS,
    description: `Number of nginx pods to run, from ${MIN_REPLICAS} to ${MAX_REPLICAS}.`,
  },
  image: {
    type: 'string',
    minLength: 1,
    maxLength: 512,
    default: DEFAULT_IMAGE,
    description: `Container image of every pod; defaults to ${DEFAULT_IMAGE}.`,
  },
  port: port(`The port nginx listens on in every pod (the container port); defaults to ${DEFAULT_PORT}.`),
  config: {
    type: 'string',
    maxLength: MAX_CONFIG_BYTES,
    description:
      'nginx server configuration (the http context: `server { … }` blocks), mounted as /etc/nginx/conf.d/default.conf; at most 256 KiB, and syntactically valid nginx. Without it, nginx serves its welcome page on spec.port.',
  },
  healthCheckPath: {
    type: 'string',
    maxLength: 1024,
    pattern: '^/[^\\s]*$',
    description:
      'A path, from /: when set, each pod is ready once GET of it on spec.port answers 2xx or 3xx (a readiness probe).',
  },
  resources: {
    type: 'object',
    description: 'CPU and memory asked for (requests) and capped (limits), for the nginx container.',
    properties: {
      requests: resourceList('What the scheduler reserves for each pod.'),
      limits: resourceList('The most each pod may use.'),
    },
    'x-kubernetes-validations': [
      {
        rule: `!has(self.requests) || !has(self.limits) || ((${notBelow('limits.cpu', 'requests.cpu')}) && (${notBelow('limits.memory', 'requests.memory')}))`,
        message: 'limits must not be below requests',
      },
    ],
  },
  priorityClassName: {
    type: 'string',
    maxLength: 253,
    pattern: DNS_SUBDOMAIN,
    description:
      "The PriorityClass every pod runs with (a scheduling.k8s.io/v1 PriorityClass's name): the scheduler's order and preemption. Unset: the cluster's default priority. A class that does not exist is the API server's refusal, reported as ReplicaFailure.",
  },
  nodeSelector: labelMap(
    'Node labels every pod needs to run on a node (a pod nodeSelector). Keys are qualified names, values label values.',
  ),
  tolerations: list(toleration, 64, 'Taints every pod tolerates.'),
  affinity,
  topologySpreadConstraints: {
    ...list(topologySpreadConstraint, 16),
    description:
      "How pods spread over topology domains. Unset: soft spreading over nodes (topologyKey kubernetes.io/hostname, maxSkew 1, ScheduleAnyway, over this Nginx's pods of one revision); [] for none.",
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['topologyKey', 'whenUnsatisfiable'],
  },
  service: {
    type: 'object',
    description: 'A Service the controller keeps for the Nginx, selecting the pods of every revision.',
    properties: {
      type: {
        type: 'string',
        enum: ['ClusterIP', 'NodePort', 'LoadBalancer'],
        description: 'How the Service is exposed; defaults to ClusterIP.',
      },
      port: port('The Service port, forwarded to spec.port; defaults to 80.'),
      nodePort: {
        type: 'integer',
        format: 'int32',
        minimum: 30000,
        maximum: 32767,
        description: 'For NodePort and LoadBalancer: the node port (picked by the API server when absent).',
      },
    },
    'x-kubernetes-validations': [
      {
        rule: "!has(self.nodePort) || (has(self.type) && self.type != 'ClusterIP')",
        message: 'nodePort needs type NodePort or LoadBalancer',
        reason: 'FieldValueForbidden',
      },
    ],
  },
  strategy: {
    type: 'object',
    description:
      'How pods move to a new revision; defaults to RollingUpdate with maxSurge 25% and maxUnavailable 25%.',
    properties: {
      type: {
        type: 'string',
        enum: ['RollingUpdate', 'Recreate', 'Canary'],
        description:
          'RollingUpdate replaces pods a few at a time; Recreate deletes all old pods first; Canary moves a share of the pods at a time through canary.steps.',
      },
      rollingUpdate: {
        type: 'object',
        description: 'The bounds of a rolling update.',
        properties: {
          maxSurge: intOrPercent(
            'Pods above spec.replicas while rolling: a count or a percentage (rounded up); defaults to 25%.',
          ),
          maxUnavailable: intOrPercent(
            'Pods below spec.replicas that may be unavailable while rolling: a count or a percentage up to 100% (rounded down); defaults to 25%.',
            100,
          ),
        },
        'x-kubernetes-validations': [
          {
            rule: "!(has(self.maxSurge) && has(self.maxUnavailable) && string(self.maxSurge) in ['0', '0%'] && string(self.maxUnavailable) in ['0', '0%'])",
            message: 'maxSurge and maxUnavailable may not both be 0',
          },
        ],
      },
      canary: {
        type: 'object',
        description: 'The steps of a canary, and the bounds inside each.',
        properties: {
          steps: {
            type: 'array',
            maxItems: 64,
            description: 'Carried out in order; past the last, every pod runs the new revision.',
            items: {
              type: 'object',
              description: 'Exactly one of setWeight, pause and analysis.',
              properties: {
                setWeight: {
                  type: 'integer',
                  format: 'int32',
                  minimum: 0,
                  maximum: 100,
                  description:
                    'Share of spec.replicas on the new revision (rounded up, at least 1 pod above 0).',
                },
                pause: {
                  type: 'object',
                  description: 'Wait for duration, or until a promote when it has none.',
                  properties: {
                    duration: {
                      type: 'string',
                      pattern: DURATION_PATTERN,
                      description: 'How long, e.g. 60s, 5m, 1h.',
                    },
                  },
                },
                analysis: {
                  type: 'object',
                  required: ['templateName'],
                  description: 'Run an entry of spec.analysis; a failed run aborts the canary.',
                  properties: { templateName: { type: 'string', minLength: 1, maxLength: 63 } },
                },
              },
              'x-kubernetes-validations': [
                {
                  rule: '(has(self.setWeight) ? 1 : 0) + (has(self.pause) ? 1 : 0) + (has(self.analysis) ? 1 : 0) == 1',
                  message: 'a step is exactly one of setWeight, pause and analysis',
                },
              ],
            },
          },
          maxSurge: intOrPercent('Pods above spec.replicas inside a step; defaults to 25%.'),
          maxUnavailable: intOrPercent(
            'Pods below spec.replicas that may be unavailable inside a step; defaults to 0.',
            100,
          ),
        },
      },
    },
    'x-kubernetes-validations': [
      {
        rule: "!has(self.rollingUpdate) || !has(self.type) || self.type == 'RollingUpdate'",
        message: 'rollingUpdate may be set only when type is RollingUpdate',
        reason: 'FieldValueForbidden',
      },
      {
        rule: "!has(self.canary) || (has(self.type) && self.type == 'Canary')",
        message: 'canary may be set only when type is Canary',
        reason: 'FieldValueForbidden',
      },
    ],
  },
  minReadySeconds: {
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 86400,
    description: 'Seconds a new pod must be ready before it counts as available; defaults to 0.',
  },
  progressDeadlineSeconds: {
    type: 'integer',
    format: 'int32',
    minimum: 1,
    maximum: 86400,
    description: `Seconds a rollout may go without progress before Progressing turns False (ProgressDeadlineExceeded); defaults to ${DEFAULT_PROGRESS_DEADLINE_SECONDS}. Nothing is rolled back.`,
  },
  revisionHistoryLimit: {
    type: 'integer',
    format: 'int32',
    minimum: 0,
    maximum: 1000,
    description: `Old revisions kept for rollback; defaults to ${DEFAULT_REVISION_HISTORY_LIMIT}.`,
  },
  paused: {
    type: 'boolean',
    description: 'While true, changes to the pod template do not roll out; scaling still applies.',
  },
  disruptionBudget: {
    type: 'object',
    description:
      'A PodDisruptionBudget the controller keeps for the pods: set exactly one of minAvailable and maxUnavailable.',
    properties: {
      minAvailable: intOrPercent(
        'Pods that must stay available through an eviction: a count or a percentage.',
        100,
      ),
      maxUnavailable: intOrPercent('Pods an eviction may leave unavailable: a count or a percentage.', 100),
    },
    'x-kubernetes-validations': [
      {
        rule: 'has(self.minAvailable) != has(self.maxUnavailable)',
        message: 'set exactly one of minAvailable and maxUnavailable',
      },
    ],
  },
  analysis: {
    type: 'array',
    maxItems: 16,
    description: 'Named analyses, each a Prometheus query measured count times, that canary steps run.',
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['name'],
    items: {
      type: 'object',
      required: ['name', 'prometheus', 'successCondition'],
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 63, pattern: DNS_LABEL },
        prometheus: {
          type: 'object',
          required: ['address', 'query'],
          properties: {
            address: {
              type: 'string',
              maxLength: 2048,
              pattern: '^https?://',
              description: 'Base URL of the Prometheus HTTP API, e.g. http://prometheus:9090.',
            },
            query: {
              type: 'string',
              minLength: 1,
              maxLength: 8192,
              description:
                'A PromQL instant query with one scalar answer; {{name}}, {{namespace}} and {{revision}} are replaced.',
            },
          },
        },
        successCondition: {
          type: 'string',
          minLength: 1,
          maxLength: 256,
          description: 'An expression of result, e.g. `result < 0.01`.',
        },
        failureCondition: {
          type: 'string',
          minLength: 1,
          maxLength: 256,
          description:
            'When set: a measurement meeting it fails; otherwise one not meeting successCondition does.',
        },
        interval: {
          type: 'string',
          pattern: DURATION_PATTERN,
          description: 'Time between measurements; defaults to 30s.',
        },
        count: {
          type: 'integer',
          format: 'int32',
          minimum: 1,
          maximum: 100,
          description: 'Measurements; defaults to 1.',
        },
        failureLimit: count('Failed measurements tolerated (one more fails the run); defaults to 0.'),
        inconclusiveLimit: count('Inconclusive measurements tolerated; defaults to 0.'),
      },
    },
  },
  rollbackOnFailure: {
    type: 'boolean',
    description:
      'A failed analysis or an exceeded progress deadline sends every pod back to status.currentRevision; the spec is kept, and the status says so until it changes.',
  },
  // --- TLS and Ingress (issue 34) ---
  tls: {
    type: 'object',
    description: `A kubernetes.io/tls Secret mounted into every pod at ${TLS_MOUNT_PATH}; the pods' nginx also listens on ${TLS_PORT} with its certificate, in front of spec.port. A Secret that does not exist is ReplicaFailure (reason ${SECRET_NOT_FOUND}): no pod is created until it does.`,
    required: ['secretName'],
    properties: {
      secretName: {
        type: 'string',
        maxLength: 253,
        pattern: DNS_SUBDOMAIN,
        description: "The Secret's name, in the Nginx's namespace (a DNS subdomain).",
      },
    },
  },
  ingress: {
    type: 'object',
    description:
      'A networking.k8s.io/v1 Ingress the controller keeps for the Nginx, named after it, routing host and path to the owned Service (needs spec.service).',
    required: ['host'],
    properties: {
      className: {
        type: 'string',
        maxLength: 253,
        pattern: DNS_SUBDOMAIN,
        description: "The IngressClass's name; the cluster's default class when unset.",
      },
      host: {
        type: 'string',
        maxLength: 253,
        pattern: INGRESS_HOST,
        description:
          'The host routed: a DNS name (web.example.com), or a wildcard of one label (*.example.com).',
      },
      tls: {
        type: 'boolean',
        description:
          'When true (needs spec.tls), the Ingress terminates TLS for the host with spec.tls.secretName.',
      },
      path: {
        type: 'string',
        maxLength: 1024,
        pattern: '^/[^\\s{};]*$',
        description: 'The path prefix routed (pathType Prefix); defaults to /.',
      },
    },
  },
  // --- end TLS and Ingress ---
} satisfies PropertiesOf<NginxSpec>;

const measurement: JsonSchema = {
  type: 'object',
  required: ['at', 'query', 'phase'],
  properties: {
    at: { type: 'string', format: 'date-time' },
    query: { type: 'string', maxLength: 8192 },
    value: { type: 'number' },
    phase: { type: 'string', enum: ['Successful', 'Failed', 'Inconclusive', 'Error'] },
    message: { type: 'string', maxLength: 1024 },
  },
};

const canaryStatus: JsonSchema = {
  type: 'object',
  description: 'Strategy Canary: where the canary of the update revision stands.',
  required: ['revision', 'step', 'weight', 'phase'],
  properties: {
    revision: { type: 'string', maxLength: 63 },
    step: count('Index of the step being carried out (the number of steps once past the last).'),
    weight: { type: 'integer', format: 'int32', minimum: 0, maximum: 100 },
    phase: { type: 'string', enum: ['Progressing', 'Paused', 'Promoted', 'Aborted'] },
    stepStartedAt: { type: 'string', format: 'date-time' },
    message: { type: 'string', maxLength: 1024 },
    abortedBy: { type: 'string', maxLength: 253 },
    analysisRuns: {
      type: 'array',
      maxItems: 64,
      items: {
        type: 'object',
        required: ['name', 'templateName', 'step', 'phase', 'startedAt', 'measurements'],
        properties: {
          name: { type: 'string', maxLength: 253 },
          templateName: { type: 'string', maxLength: 63 },
          step: count('The step it gates.'),
          phase: { type: 'string', enum: ['Running', 'Successful', 'Failed', 'Inconclusive', 'Error'] },
          startedAt: { type: 'string', format: 'date-time' },
          measurements: { type: 'array', maxItems: 100, items: measurement },
        },
      },
    },
  },
};

/**
 * The Nginx schema: the single source for the CRD manifest (deploy/crd), the API's server-side validation and the
 * UI's forms. Only `spec` is writable by users; `status` belongs to the controller.
 */
export const nginxSchema: JsonSchema = {
  type: 'object',
  description: 'Runs spec.replicas nginx pods.',
  required: ['spec'],
  properties: {
    apiVersion: { type: 'string' },
    kind: { type: 'string' },
    metadata: { type: 'object' },
    spec: {
      type: 'object',
      description: 'What to run.',
      required: ['replicas'],
      properties: specProperties,
      'x-kubernetes-validations': [
        {
          rule: `(has(self.progressDeadlineSeconds) ? self.progressDeadlineSeconds : ${DEFAULT_PROGRESS_DEADLINE_SECONDS}) > (has(self.minReadySeconds) ? self.minReadySeconds : 0)`,
          message: 'progressDeadlineSeconds must be greater than minReadySeconds',
          fieldPath: '.progressDeadlineSeconds',
        },
        ANALYSIS_NAMED_RULE,
        ...TLS_INGRESS_RULES,
      ],
    },
    status: {
      type: 'object',
      description: 'What the controller observed. Written through the status subresource only.',
      properties: {
        replicas: count('Pods that exist and are not terminating or finished.'),
        updatedReplicas: count('Of those, pods of the update revision.'),
        currentRevision: { type: 'string', maxLength: 63, description: 'The revision every pod ran last.' },
        updateRevision: {
          type: 'string',
          maxLength: 63,
          description: "The revision of the current spec's pod template, which a rollout moves every pod to.",
        },
        service: {
          type: 'object',
          description: 'The owned Service, when spec.service is set.',
          properties: {
            name: { type: 'string', maxLength: 253 },
            clusterIP: { type: 'string', maxLength: 64 },
            readyEndpoints: count('Ready addresses in the EndpointSlices of the Service.'),
          },
        },
        ingress: {
          type: 'object',
          description: 'The owned Ingress, when spec.ingress is set.',
          properties: {
            name: { type: 'string', maxLength: 253 },
            addresses: {
              type: 'array',
              maxItems: 32,
              description: "The addresses (IPs or hostnames) the Ingress's controller published.",
              items: { type: 'string', maxLength: 253 },
            },
          },
        },
        disruptionBudget: {
          type: 'object',
          description: 'The owned PodDisruptionBudget, when spec.disruptionBudget is set.',
          properties: {
            name: { type: 'string', maxLength: 253 },
            disruptionsAllowed: count('Pods that may be evicted now without going below the budget.'),
            currentHealthy: count('Healthy pods of the Nginx now.'),
            desiredHealthy: count('The fewest healthy pods the budget allows.'),
          },
        },
        readyReplicas: count('Of those, pods whose Ready condition is True.'),
        availableReplicas: count('Of those, pods ready for at least spec.minReadySeconds.'),
        observedGeneration: {
          type: 'integer',
          format: 'int64',
          minimum: 0,
          description: 'The generation last acted on.',
        },
        message: { type: 'string', maxLength: 1024, description: 'A short human sentence about the state.' },
        selector: { type: 'string', description: 'Label selector of the pods, for the scale subresource.' },
        canary: canaryStatus,
        conditions: {
          type: 'array',
          items: condition,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['type'],
        },
      },
    },
  },
};

/** The spec's field schemas, for forms that edit an Nginx. */
export const nginxSpecSchema = nginxSchema.properties!.spec!;
