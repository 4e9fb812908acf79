import { Type, type TSchema } from '@sinclair/typebox';
import type { V1ObjectMeta } from '@kubernetes/client-node';
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
} from './item-rules.js';
import { ANALYSIS_NAMED_RULE, TLS_INGRESS_RULES } from './spec-cel-rules.js';
import { DNS_LABEL, DNS_SUBDOMAIN, INGRESS_HOST } from './dns-names.js';
import { SECRET_NOT_FOUND, TLS_MOUNT_PATH, TLS_PORT } from './tls.js';
import type { JsonSchema } from './json-schema.js';
import { nonEmptyObject, nonEmptyResources } from './empty-values.js';
import { template } from './template-declaration.js';
import {
  IntOrString,
  MapOf,
  OpaqueObject,
  StringEnum,
  structural,
  type KubeOptions,
} from './schema-kinds.js';

export type { JsonSchema, ValidationRule } from './json-schema.js';

/**
 * The Nginx API declared once, with TypeBox: each `…Shape` below is at the same time a structural schema with its
 * `x-kubernetes-*` extensions (the CRD's, see nginxSchema) and, through `Static`, the TypeScript type of what it
 * admits (types.ts). A field added here is in the CRD, the API's validation, the UI's forms and the types at once.
 */

const { Optional } = Type;

/** An object with declared fields; `x-kubernetes-*` keywords allowed beside TypeBox's own options. */
const object = <P extends Record<string, TSchema>>(properties: P, options: KubeOptions = {}) =>
  Type.Object(properties, options);

const list = <T extends TSchema>(items: T, maxItems: number, options: KubeOptions = {}) =>
  Type.Array(items, { maxItems, ...options });

const int32 = (options: KubeOptions = {}) => Type.Integer({ format: 'int32', ...options });
const int64 = (options: KubeOptions = {}) => Type.Integer({ format: 'int64', ...options });
const dateTime = (options: KubeOptions = {}) => Type.String({ format: 'date-time', ...options });

export const ConditionShape = object(
  {
    type: Type.String({ description: 'Available, Progressing or ReplicaFailure.', maxLength: 316 }),
    status: StringEnum(['True', 'False', 'Unknown']),
    observedGeneration: Optional(int64({ minimum: 0 })),
    lastTransitionTime: dateTime(),
    lastUpdateTime: Optional(dateTime({ description: 'Progressing: when the rollout last made progress.' })),
    reason: Type.String({
      maxLength: 1024,
      minLength: 1,
      pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
    }),
    message: Type.String({ maxLength: 32768 }),
  },
  { description: 'A standard condition (metav1.Condition).' },
);

/** An integer count or a percentage: `maxPercent` caps the percentage (at 100 where more makes no sense). */
const intOrPercent = (description: string, maxPercent?: 100) =>
  IntOrString({ minimum: 0, pattern: maxPercent ? '^(100|[1-9]?[0-9])%$' : '^[0-9]+%$', description });

/**
 * A non-negative Kubernetes quantity: `50m`, `64Mi`, `1.5`, `2e3`, or a whole number. The exponent has at most two
 * digits: kube-apiserver's CEL quantity() spends minutes of CPU on one like `1e615202562826`.
 */
export const QUANTITY_PATTERN =
  '^(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d{1,2}|Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)?$';

/** At most 64 characters: kube-apiserver prices the CEL rule on quantities by their longest length. */
const quantity = (description: string) =>
  IntOrString({ minimum: 0, maxLength: 64, pattern: QUANTITY_PATTERN, description });

const resourceList = (description: string) =>
  object(
    {
      cpu: Optional(quantity('CPU, in cores (`50m` is 0.05 of a core).')),
      memory: Optional(quantity('Memory, in bytes (`64Mi`).')),
      'ephemeral-storage': Optional(quantity('Local scratch space, in bytes.')),
    },
    { description },
  );

/** The CEL literal of QUANTITY_PATTERN (its backslashes escaped). */
const QUANTITY_LITERAL = `'${QUANTITY_PATTERN.replaceAll('\\', '\\\\')}'`;

/**
 * Whether `a >= b` for two quantities (CEL's quantity library), or true when either is absent or not a quantity
 * (its pattern's error says so): quantity() only ever sees text that matches QUANTITY_PATTERN.
 */
const notBelow = (a: string, b: string) =>
  `!has(self.${a}) || !has(self.${b}) || !string(self.${a}).matches(${QUANTITY_LITERAL}) || !string(self.${b}).matches(${QUANTITY_LITERAL}) || quantity(string(self.${a})).compareTo(quantity(string(self.${b}))) >= 0`;

const port = (description: string) => int32({ minimum: 1, maximum: 65535, description });

const count = (description: string) => int32({ minimum: 0, description });

/** A label key, taint key or topology key: a qualified name (`kubernetes.io/hostname`, `disktype`). */
const qualifiedKey = (description: string, options: KubeOptions = {}) =>
  Type.String({ maxLength: MAX_QUALIFIED_NAME, pattern: QUALIFIED_NAME_PATTERN, description, ...options });

const labelValue = (description: string) =>
  Type.String({ maxLength: 63, pattern: LABEL_VALUE_PATTERN, description });

/** A map of labels: qualified-name keys (a CEL rule: a structural schema cannot constrain keys) and label values. */
const labelMap = (description: string) =>
  MapOf(labelValue('A label value: at most 63 characters.'), {
    description,
    maxProperties: 64,
    'x-kubernetes-validations': [LABEL_KEYS_RULE],
  });

const requirement = <const O extends readonly string[]>(
  operators: O,
  valueLength: number,
  description: string,
) =>
  object(
    {
      key: qualifiedKey('The label key.'),
      operator: StringEnum(operators),
      values: Optional(
        list(Type.String({ maxLength: valueLength }), 64, {
          description: 'Empty for Exists and DoesNotExist.',
        }),
      ),
    },
    { description },
  );

/** A metav1.LabelSelector: matchLabels and matchExpressions, ANDed. */
const labelSelector = (description: string) =>
  object(
    {
      matchLabels: Optional(labelMap('Labels a pod must have.')),
      matchExpressions: Optional(
        list(requirement(['In', 'NotIn', 'Exists', 'DoesNotExist'], 63, 'A label requirement.'), 32),
      ),
    },
    { description },
  );

const NODE_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'] as const;

/** A core/v1 NodeSelectorTerm: its requirements ANDed. */
const nodeSelectorTerm = object(
  {
    matchExpressions: Optional(list(requirement(NODE_OPERATORS, 253, "On the node's labels."), 32)),
    matchFields: Optional(list(requirement(NODE_OPERATORS, 253, "On the node's fields."), 32)),
  },
  { description: 'Requirements on a node, ANDed.' },
);

const weight = int32({
  minimum: 1,
  maximum: 100,
  description: "Added to a node's score when the term matches, 1 to 100.",
});

const stringKeys = (description: string) =>
  list(Type.String({ maxLength: MAX_QUALIFIED_NAME }), 32, { description });

/** A core/v1 PodAffinityTerm: pods matching the selector in the namespaces, on nodes of one topology domain. */
const podAffinityTerm = object(
  {
    labelSelector: Optional(labelSelector('The pods the term is about.')),
    namespaceSelector: Optional(labelSelector('Namespaces whose pods count; with namespaces, their union.')),
    namespaces: Optional(
      list(Type.String({ maxLength: 63 }), 64, {
        description: "Namespaces whose pods count; none: the pod's own.",
      }),
    ),
    topologyKey: qualifiedKey('The node label whose values make the domains.', { minLength: 1 }),
    matchLabelKeys: Optional(
      stringKeys('Labels of the incoming pod whose values are added to labelSelector.'),
    ),
    mismatchLabelKeys: Optional(
      stringKeys('Labels of the incoming pod whose values labelSelector must not match.'),
    ),
  },
  { description: 'Pods matching labelSelector in namespaces, in the same topologyKey domain.' },
);

const podAffinity = (description: string) =>
  object(
    {
      requiredDuringSchedulingIgnoredDuringExecution: Optional(
        list(podAffinityTerm, 32, { description: 'Every term must hold.' }),
      ),
      preferredDuringSchedulingIgnoredDuringExecution: Optional(
        list(object({ weight, podAffinityTerm }), 32, {
          description: "Terms that add their weight to a node's score.",
        }),
      ),
    },
    { description },
  );

/** core/v1 Affinity, every field of it declared, so a mistake is refused when the Nginx is written. */
export const AffinityShape = object(
  {
    nodeAffinity: Optional(
      object(
        {
          requiredDuringSchedulingIgnoredDuringExecution: Optional(
            object({ nodeSelectorTerms: list(nodeSelectorTerm, 32, { description: 'Terms ORed.' }) }),
          ),
          preferredDuringSchedulingIgnoredDuringExecution: Optional(
            list(object({ weight, preference: nodeSelectorTerm }), 32),
          ),
        },
        { description: 'Nodes the pods must (required…) or should (preferred…) run on.' },
      ),
    ),
    podAffinity: Optional(podAffinity('Run near pods matching the terms.')),
    podAntiAffinity: Optional(podAffinity('Run away from pods matching the terms.')),
  },
  {
    description:
      'The core/v1 Affinity of every pod: nodeAffinity, podAffinity and podAntiAffinity, as in a pod spec.',
  },
);

export const TolerationShape = object(
  {
    key: Optional(
      qualifiedKey('The taint key; empty with operator Exists: every taint.', {
        pattern: `^$|${QUALIFIED_NAME_PATTERN}`,
      }),
    ),
    operator: Optional(StringEnum(['Exists', 'Equal'], { description: 'Defaults to Equal.' })),
    value: Optional(labelValue('The taint value (Equal only).')),
    effect: Optional(
      StringEnum(['NoSchedule', 'PreferNoSchedule', 'NoExecute'], {
        description: 'The taint effect matched; unset: every effect.',
      }),
    ),
    tolerationSeconds: Optional(
      int64({
        minimum: 0,
        description: 'NoExecute only: seconds the pod stays after the taint appears; unset: for ever.',
      }),
    ),
  },
  {
    description: 'A taint the pods tolerate (core/v1 Toleration).',
    'x-kubernetes-validations': TOLERATION_RULES,
  },
);

export const TopologySpreadConstraintShape = object(
  {
    maxSkew: int32({ minimum: 1, description: 'The most pods one domain may run above the emptiest.' }),
    topologyKey: qualifiedKey('The node label whose values make the domains.', { minLength: 1 }),
    whenUnsatisfiable: StringEnum(['DoNotSchedule', 'ScheduleAnyway'], {
      description: 'DoNotSchedule keeps a pod Pending rather than skew more; ScheduleAnyway only prefers.',
    }),
    labelSelector: Optional(labelSelector('The pods counted in each domain.')),
    matchLabelKeys: Optional(
      stringKeys('Labels of the incoming pod whose values are added to labelSelector.'),
    ),
    minDomains: Optional(int32({ minimum: 1 })),
    nodeAffinityPolicy: Optional(StringEnum(['Honor', 'Ignore'])),
    nodeTaintsPolicy: Optional(StringEnum(['Honor', 'Ignore'])),
  },
  { description: 'A core/v1 TopologySpreadConstraint.', 'x-kubernetes-validations': SPREAD_RULES },
);

export const ResourcesShape = object(
  {
    requests: Optional(resourceList('What the scheduler reserves for each pod.')),
    limits: Optional(resourceList('The most each pod may use.')),
  },
  {
    description: 'CPU and memory asked for (requests) and capped (limits), for the nginx container.',
    'x-kubernetes-validations': [
      {
        rule: `!has(self.requests) || !has(self.limits) || ((${notBelow('limits.cpu', 'requests.cpu')}) && (${notBelow('limits.memory', 'requests.memory')}))`,
        message: 'limits must not be below requests',
      },
    ],
  },
);

export const ServiceTypeShape = StringEnum(['ClusterIP', 'NodePort', 'LoadBalancer'], {
  description: 'How the Service is exposed; defaults to ClusterIP.',
});

export const ServiceShape = object(
  {
    type: Optional(ServiceTypeShape),
    port: Optional(port('The Service port, forwarded to spec.port; defaults to 80.')),
    nodePort: Optional(
      int32({
        minimum: 30000,
        maximum: 32767,
        description: 'For NodePort and LoadBalancer: the node port (picked by the API server when absent).',
      }),
    ),
  },
  {
    description: 'A Service the controller keeps for the Nginx, selecting the pods of every revision.',
    'x-kubernetes-validations': [
      {
        rule: "!has(self.nodePort) || (has(self.type) && self.type != 'ClusterIP')",
        message: 'nodePort needs type NodePort or LoadBalancer',
        reason: 'FieldValueForbidden',
      },
    ],
  },
);

export const RollingUpdateShape = object(
  {
    maxSurge: Optional(
      intOrPercent(
        'Pods above spec.replicas while rolling: a count or a percentage (rounded up); defaults to 25%.',
      ),
    ),
    maxUnavailable: Optional(
      intOrPercent(
        'Pods below spec.replicas that may be unavailable while rolling: a count or a percentage up to 100% (rounded down); defaults to 25%.',
        100,
      ),
    ),
  },
  {
    description: 'The bounds of a rolling update.',
    'x-kubernetes-validations': [
      {
        rule: "!(has(self.maxSurge) && has(self.maxUnavailable) && string(self.maxSurge) in ['0', '0%'] && string(self.maxUnavailable) in ['0', '0%'])",
        message: 'maxSurge and maxUnavailable may not both be 0',
      },
    ],
  },
);

/** A header match of setHeaderRoute: exactly one of exact, prefix and regex. */
export const HeaderValueShape = object(
  {
    exact: Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    prefix: Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    regex: Optional(
      Type.String({
        minLength: 1,
        maxLength: 1024,
        description:
          'A regular expression (RE2 syntax, as Gateway implementations take it) the whole value matches.',
      }),
    ),
  },
  {
    description: 'Exactly one of exact, prefix and regex.',
    'x-kubernetes-validations': [
      {
        rule: '(has(self.exact) ? 1 : 0) + (has(self.prefix) ? 1 : 0) + (has(self.regex) ? 1 : 0) == 1',
        message: 'a header value is exactly one of exact, prefix and regex',
      },
    ],
  },
);

/** An HTTP header name: a token (RFC 9110). */
const HEADER_NAME_PATTERN = "^[A-Za-z0-9!#$%&'*+\\-.^_\\x60|~]+$";

export const HeaderMatchShape = object({
  headerName: Type.String({
    minLength: 1,
    maxLength: 256,
    pattern: HEADER_NAME_PATTERN,
    description: 'An HTTP header name (case-insensitive).',
  }),
  headerValue: HeaderValueShape,
});

export const GateWebhookShape = object(
  {
    url: Type.String({
      minLength: 8,
      maxLength: 2048,
      pattern: '^https?://[^\\s/?#]+([/?#]\\S*)?$',
      description: 'Where the gate POSTs the rollout’s context (http or https). A 2xx answer passes.',
    }),
    timeoutSeconds: Optional(
      int32({
        minimum: 1,
        maximum: 60,
        description: 'How long the answer may take; defaults to 10. Longer fails.',
      }),
    ),
    headers: Optional(
      MapOf(Type.String({ maxLength: 4096 }), {
        description: 'Headers sent with the POST (Authorization, …).',
        maxProperties: 16,
        'x-kubernetes-validations': [
          {
            rule: `self.all(k, k.matches(r"${HEADER_NAME_PATTERN}"))`,
            message: 'every key must be an HTTP header name',
          },
        ],
      }),
    ),
  },
  { description: 'A gate decided by a webhook: 2xx passes; any other answer, or none in time, fails.' },
);

export const GateShape = object(
  {
    webhook: Optional(GateWebhookShape),
    manual: Optional(
      object(
        {},
        { description: 'A gate opened by a promote (the UI and the plugin call it a gate, not a pause).' },
      ),
    ),
  },
  {
    description: 'Exactly one of webhook and manual.',
    'x-kubernetes-validations': [
      {
        rule: '(has(self.webhook) ? 1 : 0) + (has(self.manual) ? 1 : 0) == 1',
        message: 'a gate is exactly one of webhook and manual',
      },
    ],
  },
);

export const CanaryStepShape = object(
  {
    setWeight: Optional(
      int32({
        minimum: 0,
        maximum: 100,
        description:
          'Share of the traffic the canary gets: through trafficRouting, the HTTPRoute weight; without it, the share of spec.replicas on the new revision (rounded up, at least 1 pod above 0).',
      }),
    ),
    pause: Optional(
      object(
        {
          duration: Optional(
            Type.String({ pattern: DURATION_PATTERN, description: 'How long, e.g. 60s, 5m, 1h.' }),
          ),
        },
        { description: 'Wait for duration, or until a promote when it has none.' },
      ),
    ),
    analysis: Optional(
      object(
        { templateName: Type.String({ minLength: 1, maxLength: 63 }) },
        { description: 'Run an entry of spec.analysis; a failed run aborts the canary.' },
      ),
    ),
    setHeaderRoute: Optional(
      object(
        {
          name: Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL }),
          match: list(HeaderMatchShape, 16, {
            minItems: 1,
            description: 'Requests matching every entry go to the canary.',
          }),
        },
        {
          description:
            'trafficRouting only: add an HTTPRoute rule sending requests with these headers to the canary, until the canary ends or is aborted.',
        },
      ),
    ),
    gate: Optional(GateShape),
    setCanaryScale: Optional(
      object(
        {
          replicas: Optional(
            int32({ minimum: 0, maximum: MAX_REPLICAS, description: 'Canary pods, as a count.' }),
          ),
          weight: Optional(
            int32({ minimum: 0, maximum: 100, description: 'Canary pods, as a share of spec.replicas.' }),
          ),
          matchTrafficWeight: Optional(
            Type.Boolean({ description: 'Canary pods follow the traffic weight again (the default).' }),
          ),
        },
        {
          description:
            'trafficRouting only: how many canary pods run from this step on, apart from the traffic weight.',
          'x-kubernetes-validations': [
            {
              rule: '(has(self.replicas) ? 1 : 0) + (has(self.weight) ? 1 : 0) + (has(self.matchTrafficWeight) ? 1 : 0) == 1',
              message: 'setCanaryScale is exactly one of replicas, weight and matchTrafficWeight',
            },
          ],
        },
      ),
    ),
  },
  {
    description: 'Exactly one of setWeight, pause, analysis, setHeaderRoute, setCanaryScale and gate.',
    'x-kubernetes-validations': [
      {
        rule: '(has(self.setWeight) ? 1 : 0) + (has(self.pause) ? 1 : 0) + (has(self.analysis) ? 1 : 0) + (has(self.setHeaderRoute) ? 1 : 0) + (has(self.setCanaryScale) ? 1 : 0) + (has(self.gate) ? 1 : 0) == 1',
        message:
          'a step is exactly one of setWeight, pause, analysis, setHeaderRoute, setCanaryScale and gate',
      },
    ],
  },
);

export const GatewayAPIRoutingShape = object(
  {
    httpRoute: Type.String({
      minLength: 1,
      maxLength: 253,
      pattern: DNS_SUBDOMAIN,
      description: 'The HTTPRoute whose rules send traffic to the stable Service.',
    }),
    namespace: Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: DNS_LABEL,
        description:
          "The HTTPRoute's namespace; defaults to the Nginx's. Another namespace needs a ReferenceGrant in the Nginx's.",
      }),
    ),
  },
  { description: 'An HTTPRoute of Gateway API.' },
);

export const TrafficRoutingShape = object(
  { gatewayAPI: GatewayAPIRoutingShape },
  { description: "Where the canary's traffic weights are written." },
);

export const CanaryStrategyShape = object(
  {
    steps: Optional(
      list(CanaryStepShape, 64, {
        description: 'Carried out in order; past the last, every pod runs the new revision.',
      }),
    ),
    maxSurge: Optional(intOrPercent('Pods above spec.replicas inside a step; defaults to 25%.')),
    maxUnavailable: Optional(
      intOrPercent('Pods below spec.replicas that may be unavailable inside a step; defaults to 0.', 100),
    ),
    trafficRouting: Optional(TrafficRoutingShape),
    stableService: Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: DNS_LABEL,
        description: 'trafficRouting: the Service selecting the stable pods; defaults to <name>-stable.',
      }),
    ),
    canaryService: Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: DNS_LABEL,
        description: 'trafficRouting: the Service selecting the canary pods; defaults to <name>-canary.',
      }),
    ),
  },
  {
    description: 'The steps of a canary, and the bounds inside each.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.trafficRouting) || (!has(self.stableService) && !has(self.canaryService))',
        message: 'stableService and canaryService need trafficRouting',
        reason: 'FieldValueForbidden',
      },
      {
        rule: '!has(self.stableService) || !has(self.canaryService) || self.stableService != self.canaryService',
        message: 'stableService and canaryService must differ',
      },
      {
        rule: 'has(self.trafficRouting) || !has(self.steps) || self.steps.all(s, !has(s.setHeaderRoute) && !has(s.setCanaryScale))',
        message: 'setHeaderRoute and setCanaryScale steps need trafficRouting',
        reason: 'FieldValueForbidden',
      },
    ],
  },
);

const analysisReference = (description: string) =>
  object({ templateName: Type.String({ minLength: 1, maxLength: 63 }) }, { description });

export const BlueGreenStrategyShape = object(
  {
    activeService: Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: DNS_LABEL,
        description:
          'The Service selecting the active revision (switched at promotion in one write); defaults to <name>-active.',
      }),
    ),
    previewService: Optional(
      Type.String({
        minLength: 1,
        maxLength: 63,
        pattern: DNS_LABEL,
        description: 'The Service selecting the revision being previewed; defaults to <name>-preview.',
      }),
    ),
    autoPromotionEnabled: Optional(
      Type.Boolean({
        description:
          'Promote by itself once the preview is ready and its analysis passed (the default); false waits for a promote.',
      }),
    ),
    autoPromotionSeconds: Optional(
      int32({
        minimum: 0,
        maximum: 86_400,
        description: 'How long after the preview is ready an automatic promotion waits; defaults to 0.',
      }),
    ),
    prePromotionAnalysis: Optional(
      analysisReference('Run an entry of spec.analysis on the preview before promotion; failed aborts.'),
    ),
    prePromotionGate: Optional(GateShape),
    postPromotionAnalysis: Optional(
      analysisReference(
        'Run an entry of spec.analysis after the switch, the old pods kept; failed switches back.',
      ),
    ),
    scaleDownDelaySeconds: Optional(
      int32({
        minimum: 0,
        maximum: 86_400,
        description:
          "How long the old revision's pods stay after the switch, for an instant switch back; defaults to 30.",
      }),
    ),
    previewReplicaCount: Optional(
      int32({
        minimum: 1,
        maximum: MAX_REPLICAS,
        description: 'Pods of the new revision while it is previewed; defaults to spec.replicas.',
      }),
    ),
  },
  {
    description: 'A preview of the new revision beside the active one, then a switch of the active Service.',
    'x-kubernetes-validations': [
      {
        rule: '!has(self.activeService) || !has(self.previewService) || self.activeService != self.previewService',
        message: 'activeService and previewService must differ',
      },
    ],
  },
);

export const StrategyShape = object(
  {
    type: Optional(
      StringEnum(['RollingUpdate', 'Recreate', 'Canary', 'BlueGreen'], {
        description:
          'RollingUpdate replaces pods a few at a time; Recreate deletes all old pods first; Canary moves a share of the pods at a time through canary.steps; BlueGreen previews the new revision beside the active one, then switches the active Service to it.',
      }),
    ),
    rollingUpdate: Optional(RollingUpdateShape),
    canary: Optional(CanaryStrategyShape),
    blueGreen: Optional(BlueGreenStrategyShape),
  },
  {
    description:
      'How pods move to a new revision; defaults to RollingUpdate with maxSurge 25% and maxUnavailable 25%.',
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
      {
        rule: "!has(self.blueGreen) || (has(self.type) && self.type == 'BlueGreen')",
        message: 'blueGreen may be set only when type is BlueGreen',
        reason: 'FieldValueForbidden',
      },
    ],
  },
);

export const DisruptionBudgetShape = object(
  {
    minAvailable: Optional(
      intOrPercent('Pods that must stay available through an eviction: a count or a percentage.', 100),
    ),
    maxUnavailable: Optional(
      intOrPercent('Pods an eviction may leave unavailable: a count or a percentage.', 100),
    ),
  },
  {
    description:
      'A PodDisruptionBudget the controller keeps for the pods: set exactly one of minAvailable and maxUnavailable.',
    'x-kubernetes-validations': [
      {
        rule: 'has(self.minAvailable) != has(self.maxUnavailable)',
        message: 'set exactly one of minAvailable and maxUnavailable',
      },
    ],
  },
);

export const PrometheusQueryShape = object({
  address: Type.String({
    maxLength: 2048,
    pattern: '^https?://',
    description: 'Base URL of the Prometheus HTTP API, e.g. http://prometheus:9090.',
  }),
  query: Type.String({
    minLength: 1,
    maxLength: 8192,
    description:
      'A PromQL instant query with one scalar answer; {{name}}, {{namespace}} and {{revision}} are replaced.',
  }),
});

export const AnalysisTemplateShape = object({
  name: Type.String({ minLength: 1, maxLength: 63, pattern: DNS_LABEL }),
  prometheus: PrometheusQueryShape,
  successCondition: Type.String({
    minLength: 1,
    maxLength: 256,
    description: 'An expression of result, e.g. `result < 0.01`.',
  }),
  failureCondition: Optional(
    Type.String({
      minLength: 1,
      maxLength: 256,
      description:
        'When set: a measurement meeting it fails; otherwise one not meeting successCondition does.',
    }),
  ),
  interval: Optional(
    Type.String({ pattern: DURATION_PATTERN, description: 'Time between measurements; defaults to 30s.' }),
  ),
  count: Optional(int32({ minimum: 1, maximum: 100, description: 'Measurements; defaults to 1.' })),
  failureLimit: Optional(count('Failed measurements tolerated (one more fails the run); defaults to 0.')),
  inconclusiveLimit: Optional(count('Inconclusive measurements tolerated; defaults to 0.')),
});

// --- TLS and Ingress (issue 34) ---
export const TlsShape = object(
  {
    secretName: Type.String({
      maxLength: 253,
      pattern: DNS_SUBDOMAIN,
      description: "The Secret's name, in the Nginx's namespace (a DNS subdomain).",
    }),
  },
  {
    description: `A kubernetes.io/tls Secret mounted into every pod at ${TLS_MOUNT_PATH}; the pods' nginx also listens on ${TLS_PORT} with its certificate, in front of spec.port. A Secret that does not exist is ReplicaFailure (reason ${SECRET_NOT_FOUND}): no pod is created until it does.`,
  },
);

export const IngressShape = object(
  {
    className: Optional(
      Type.String({
        maxLength: 253,
        pattern: DNS_SUBDOMAIN,
        description: "The IngressClass's name; the cluster's default class when unset.",
      }),
    ),
    host: Type.String({
      maxLength: 253,
      pattern: INGRESS_HOST,
      description:
        'The host routed: a DNS name (web.example.com), or a wildcard of one label (*.example.com).',
    }),
    tls: Optional(
      Type.Boolean({
        description:
          'When true (needs spec.tls), the Ingress terminates TLS for the host with spec.tls.secretName.',
      }),
    ),
    path: Optional(
      Type.String({
        maxLength: 1024,
        pattern: '^/[^\\s{};]*$',
        description: 'The path prefix routed (pathType Prefix); defaults to /.',
      }),
    ),
  },
  {
    description:
      'A networking.k8s.io/v1 Ingress the controller keeps for the Nginx, named after it, routing host and path to the owned Service (needs spec.service).',
  },
);
// --- end TLS and Ingress ---

/**
 * The spec. A property marked with template(…) is a field of the pod template (what every pod of one revision runs),
 * its row saying how (see TemplateRow): template-fields.ts reads the rows off this declaration, in this order, which
 * is the template's key order. A new template field is its declaration here and its use in the pod builder.
 */
export const NginxSpecShape = object(
  {
    replicas: int32({
      minimum: MIN_REPLICAS,
      maximum: MAX_REPLICAS,
      description: `Number of nginx pods to run, from ${MIN_REPLICAS} to ${MAX_REPLICAS}.`,
    }),
    image: Optional(
      template(
        Type.String({
          minLength: 1,
          maxLength: 512,
          default: DEFAULT_IMAGE,
          description: `Container image of every pod; defaults to ${DEFAULT_IMAGE}.`,
        }),
        {
          of: (image) => image || undefined,
          default: DEFAULT_IMAGE,
          example: 'nginx:1.27',
          inputs: ['image'],
          section: 'basic',
        },
      ),
    ),
    restartedAt: Optional(
      template(
        Type.String({
          // A pattern rather than format: date-time, which kube-apiserver checks by Go's time layouts and our
          // validation could only imitate: a pattern is read the same by both.
          pattern:
            '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$',
          maxLength: 64,
          description:
            'When set or changed, every pod is replaced by a rollout of the strategy, as for any template change: `kubectl ngx restart` sets it to the time. Pods carry it as the annotation kubectl.kubernetes.io/restartedAt.',
        }),
        { example: '2026-11-28T10:00:00Z', inputs: [] },
      ),
    ),
    port: Optional(
      template(
        port(`The port nginx listens on in every pod (the container port); defaults to ${DEFAULT_PORT}.`),
        { default: DEFAULT_PORT, example: 8080, inputs: ['port'], section: 'container' },
      ),
    ),
    config: Optional(
      template(
        Type.String({
          maxLength: MAX_CONFIG_BYTES,
          description:
            'nginx server configuration (the http context: `server { … }` blocks), mounted as /etc/nginx/conf.d/default.conf; at most 256 KiB, and syntactically valid nginx. Without it, nginx serves its welcome page on spec.port.',
        }),
        { example: 'server { listen 80; }\n', inputs: ['config'], section: 'config' },
      ),
    ),
    healthCheckPath: Optional(
      template(
        Type.String({
          maxLength: 1024,
          pattern: '^/[^\\s]*$',
          description:
            'A path, from /: when set, each pod is ready once GET of it on spec.port answers 2xx or 3xx (a readiness probe).',
        }),
        { example: '/healthz', inputs: ['healthCheckPath'], section: 'container' },
      ),
    ),
    resources: Optional(
      template(ResourcesShape, {
        of: nonEmptyResources,
        example: { requests: { cpu: '50m' }, limits: { memory: '64Mi' } },
        inputs: [
          'resources.requests.cpu',
          'resources.requests.memory',
          'resources.limits.cpu',
          'resources.limits.memory',
        ],
        section: 'container',
      }),
    ),
    priorityClassName: Optional(
      template(
        Type.String({
          maxLength: 253,
          pattern: DNS_SUBDOMAIN,
          description:
            "The PriorityClass every pod runs with (a scheduling.k8s.io/v1 PriorityClass's name): the scheduler's order and preemption. Unset: the cluster's default priority. A class that does not exist is the API server's refusal, reported as ReplicaFailure.",
        }),
        {
          of: (name) => name || undefined,
          example: 'high-priority',
          inputs: ['priorityClassName'],
          section: 'placement',
        },
      ),
    ),
    nodeSelector: Optional(
      template(
        labelMap(
          'Node labels every pod needs to run on a node (a pod nodeSelector). Keys are qualified names, values label values.',
        ),
        {
          of: nonEmptyObject,
          example: { disktype: 'ssd' },
          inputs: ['nodeSelector'],
          section: 'placement',
        },
      ),
    ),
    tolerations: Optional(
      template(list(TolerationShape, 64, { description: 'Taints every pod tolerates.' }), {
        of: (tolerations) => (tolerations?.length ? tolerations : undefined),
        example: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
        inputs: [],
      }),
    ),
    affinity: Optional(
      template(AffinityShape, {
        of: nonEmptyObject,
        example: {
          podAntiAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight: 100,
                podAffinityTerm: {
                  labelSelector: { matchLabels: { app: 'web' } },
                  topologyKey: 'topology.kubernetes.io/zone',
                },
              },
            ],
          },
        },
        inputs: [],
      }),
    ),
    // No `of`: [] (no spread at all) is not the same template as unset (the default spread, see podFor).
    topologySpreadConstraints: Optional(
      template(
        list(TopologySpreadConstraintShape, 16, {
          description:
            "How pods spread over topology domains. Unset: soft spreading over nodes (topologyKey kubernetes.io/hostname, maxSkew 1, ScheduleAnyway, over this Nginx's pods of one revision); [] for none.",
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['topologyKey', 'whenUnsatisfiable'],
        }),
        {
          example: [
            { maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' },
          ],
          inputs: [],
        },
      ),
    ),
    service: Optional(ServiceShape),
    strategy: Optional(StrategyShape),
    minReadySeconds: Optional(
      int32({
        minimum: 0,
        maximum: 86400,
        description: 'Seconds a new pod must be ready before it counts as available; defaults to 0.',
      }),
    ),
    progressDeadlineSeconds: Optional(
      int32({
        minimum: 1,
        maximum: 86400,
        description: `Seconds a rollout may go without progress before Progressing turns False (ProgressDeadlineExceeded); defaults to ${DEFAULT_PROGRESS_DEADLINE_SECONDS}. Nothing is rolled back.`,
      }),
    ),
    revisionHistoryLimit: Optional(
      int32({
        minimum: 0,
        maximum: 1000,
        description: `Old revisions kept for rollback; defaults to ${DEFAULT_REVISION_HISTORY_LIMIT}.`,
      }),
    ),
    paused: Optional(
      Type.Boolean({
        description: 'While true, changes to the pod template do not roll out; scaling still applies.',
      }),
    ),
    disruptionBudget: Optional(DisruptionBudgetShape),
    analysis: Optional(
      list(AnalysisTemplateShape, 16, {
        description: 'Named analyses, each a Prometheus query measured count times, that canary steps run.',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
      }),
    ),
    rollbackOnFailure: Optional(
      Type.Boolean({
        description:
          'A failed analysis or an exceeded progress deadline sends every pod back to status.currentRevision; the spec is kept, and the status says so until it changes.',
      }),
    ),
    // --- TLS and Ingress (issue 34) ---
    tls: Optional(
      template(TlsShape, {
        of: (tls) => (tls?.secretName ? { secretName: tls.secretName } : undefined),
        example: { secretName: 'web-tls' },
        inputs: ['tls.secretName'],
        section: 'tls',
      }),
    ),
    ingress: Optional(IngressShape),
    // --- end TLS and Ingress ---
  },
  {
    description: 'What to run.',
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
);

export const MeasurementPhaseShape = StringEnum(['Successful', 'Failed', 'Inconclusive', 'Error']);

export const AnalysisMeasurementShape = object({
  at: dateTime(),
  query: Type.String({ maxLength: 8192 }),
  value: Optional(Type.Number()),
  phase: MeasurementPhaseShape,
  message: Optional(Type.String({ maxLength: 1024 })),
});

export const AnalysisRunShape = object({
  name: Type.String({ maxLength: 253 }),
  templateName: Type.String({ maxLength: 63 }),
  step: count('The step it gates.'),
  phase: StringEnum(['Running', 'Successful', 'Failed', 'Inconclusive', 'Error']),
  startedAt: dateTime(),
  measurements: list(AnalysisMeasurementShape, 100),
});

export const GateRunShape = object(
  {
    name: Type.String({ maxLength: 253, description: '<revision>-<step>-gate, or <revision>-pre-gate.' }),
    step: count('The step it gates (a blue-green rollout: 0).'),
    phase: StringEnum(['Passed', 'Failed']),
    at: dateTime({ description: 'When the answer came (or the time ran out).' }),
    code: Optional(
      int32({ minimum: 0, maximum: 999, description: "The webhook's HTTP status, if it answered." }),
    ),
    message: Optional(
      Type.String({ maxLength: 1024, description: 'Why it failed: the answer (capped) or the error.' }),
    ),
  },
  { description: "A webhook gate's outcome." },
);

export const CanaryPhaseShape = StringEnum(['Progressing', 'Paused', 'Promoted', 'Aborted']);

/** The HTTPRoute a canary writes, as last read back: its parents' Accepted and ResolvedRefs conditions. */
export const HTTPRouteStatusShape = object(
  {
    name: Type.String({ maxLength: 253 }),
    namespace: Type.String({ maxLength: 63 }),
    accepted: Optional(
      StringEnum(['True', 'False', 'Unknown'], { description: 'Every parent Gateway accepted the route.' }),
    ),
    resolvedRefs: Optional(
      StringEnum(['True', 'False', 'Unknown'], {
        description: "Every parent resolved the route's backendRefs.",
      }),
    ),
    message: Optional(Type.String({ maxLength: 1024, description: 'Why a condition is not True.' })),
  },
  { description: "trafficRouting: the HTTPRoute's status as its Gateways report it." },
);

export const CanaryStatusShape = object(
  {
    revision: Type.String({ maxLength: 63 }),
    step: count('Index of the step being carried out (the number of steps once past the last).'),
    weight: int32({ minimum: 0, maximum: 100 }),
    phase: CanaryPhaseShape,
    stepStartedAt: Optional(dateTime()),
    message: Optional(Type.String({ maxLength: 1024 })),
    abortedBy: Optional(Type.String({ maxLength: 253 })),
    analysisRuns: Optional(list(AnalysisRunShape, 64)),
    gateRuns: Optional(list(GateRunShape, 64)),
    trafficWeight: Optional(
      int32({
        minimum: 0,
        maximum: 100,
        description: "trafficRouting: the canary's weight as last written to the HTTPRoute (and read back).",
      }),
    ),
    headerRoute: Optional(
      Type.String({
        maxLength: 63,
        description: 'trafficRouting: the setHeaderRoute rule in the HTTPRoute now.',
      }),
    ),
    httpRoute: Optional(HTTPRouteStatusShape),
  },
  { description: 'Strategy Canary: where the canary of the update revision stands.' },
);

export const BlueGreenPhaseShape = StringEnum(['Previewing', 'Paused', 'Promoting', 'Promoted', 'Aborted']);

export const BlueGreenStatusShape = object(
  {
    revision: Type.String({
      maxLength: 63,
      description: 'The revision being rolled out: previewed, then active.',
    }),
    activeRevision: Type.String({ maxLength: 63, description: 'The revision the active Service selects.' }),
    phase: BlueGreenPhaseShape,
    previewReadyAt: Optional(dateTime({ description: 'When every preview pod was first available.' })),
    promotedAt: Optional(dateTime({ description: 'When the active Service was switched to revision.' })),
    message: Optional(Type.String({ maxLength: 1024 })),
    abortedBy: Optional(Type.String({ maxLength: 253 })),
    analysisRuns: Optional(list(AnalysisRunShape, 64)),
    gateRuns: Optional(list(GateRunShape, 64)),
  },
  { description: 'Strategy BlueGreen: where the rollout of the update revision stands.' },
);

export const ServiceStatusShape = object(
  {
    name: Optional(Type.String({ maxLength: 253 })),
    clusterIP: Optional(Type.String({ maxLength: 64 })),
    readyEndpoints: Optional(count('Ready addresses in the EndpointSlices of the Service.')),
  },
  { description: 'The owned Service, when spec.service is set.' },
);

export const IngressStatusShape = object(
  {
    name: Optional(Type.String({ maxLength: 253 })),
    addresses: Optional(
      list(Type.String({ maxLength: 253 }), 32, {
        description: "The addresses (IPs or hostnames) the Ingress's controller published.",
      }),
    ),
  },
  { description: 'The owned Ingress, when spec.ingress is set.' },
);

export const DisruptionBudgetStatusShape = object(
  {
    name: Optional(Type.String({ maxLength: 253 })),
    disruptionsAllowed: Optional(count('Pods that may be evicted now without going below the budget.')),
    currentHealthy: Optional(count('Healthy pods of the Nginx now.')),
    desiredHealthy: Optional(count('The fewest healthy pods the budget allows.')),
  },
  { description: 'The owned PodDisruptionBudget, when spec.disruptionBudget is set.' },
);

export const NginxStatusShape = object(
  {
    replicas: Optional(count('Pods that exist and are not terminating or finished.')),
    updatedReplicas: Optional(count('Of those, pods of the update revision.')),
    currentRevision: Optional(
      Type.String({ maxLength: 63, description: 'The revision every pod ran last.' }),
    ),
    updateRevision: Optional(
      Type.String({
        maxLength: 63,
        description: "The revision of the current spec's pod template, which a rollout moves every pod to.",
      }),
    ),
    service: Optional(ServiceStatusShape),
    ingress: Optional(IngressStatusShape),
    disruptionBudget: Optional(DisruptionBudgetStatusShape),
    readyReplicas: Optional(count('Of those, pods whose Ready condition is True.')),
    availableReplicas: Optional(count('Of those, pods ready for at least spec.minReadySeconds.')),
    observedGeneration: Optional(int64({ minimum: 0, description: 'The generation last acted on.' })),
    message: Optional(
      Type.String({ maxLength: 1024, description: 'A short human sentence about the state.' }),
    ),
    selector: Optional(
      Type.String({ description: 'Label selector of the pods, for the scale subresource.' }),
    ),
    canary: Optional(CanaryStatusShape),
    blueGreen: Optional(BlueGreenStatusShape),
    conditions: Optional(
      Type.Array(ConditionShape, {
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['type'],
      }),
    ),
  },
  { description: 'What the controller observed. Written through the status subresource only.' },
);

/** The whole object as the CRD declares it (apiVersion, kind and metadata are the API server's to check). */
export const NginxShape = object(
  {
    apiVersion: Optional(Type.String()),
    kind: Optional(Type.String()),
    metadata: Optional(OpaqueObject<V1ObjectMeta>()),
    spec: NginxSpecShape,
    status: Optional(NginxStatusShape),
  },
  { description: 'Runs spec.replicas nginx pods.' },
);

/** One schema for each of an object type's fields, no more and no fewer: `satisfies` it on a literal. */
export type PropertiesOf<T, S = JsonSchema> = { [K in keyof T]-?: S };

/**
 * The Nginx schema as plain structural JSON Schema (NginxShape without TypeBox's marks): the CRD manifest
 * (deploy/crd), the API's server-side validation (CEL rules included) and the UI's forms all read it. Only `spec` is
 * writable by users; `status` belongs to the controller.
 */
export const nginxSchema: JsonSchema = structural(NginxShape);

/** The spec's field schemas, for forms that edit an Nginx. */
export const nginxSpecSchema = nginxSchema.properties!.spec!;
