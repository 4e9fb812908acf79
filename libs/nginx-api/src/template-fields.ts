import { DEFAULT_IMAGE, DEFAULT_PORT } from './names.js';
import type { NginxResources, NginxSpec } from './types.js';

/** The create form's sections that show template fields (next to fields outside the template). */
export type TemplateFormSection = 'basic' | 'container' | 'placement' | 'tls' | 'config';

/** How one spec field takes part in the pod template. */
export interface TemplateField<K extends keyof NginxSpec> {
  /** The template's value of the field from the spec's; an empty value reads as absent (undefined). */
  of?: (value: NginxSpec[K]) => NginxSpec[K] | undefined;
  /** Filled in when the spec leaves the field out: a template always has the field then. */
  default?: NonNullable<NginxSpec[K]>;
  /** A valid value other than the default, for the specs that check the field reaches the schema and the pods. */
  example: NonNullable<NginxSpec[K]>;
  /** The spec paths (leaves under the field) a form edits it through, in the order shown; none when no form does. */
  inputs: readonly string[];
  /**
   * The create form's section showing `inputs`, exactly when there are some; a section shows its template fields in
   * this table's order.
   */
  section?: TemplateFormSection;
}

function resourcesOf(resources: NginxResources | undefined): NginxResources | undefined {
  const requests =
    resources?.requests && Object.keys(resources.requests).length ? resources.requests : undefined;
  const limits = resources?.limits && Object.keys(resources.limits).length ? resources.limits : undefined;
  if (!requests && !limits) return undefined;
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) };
}

/** An object with no keys reads as absent: `nodeSelector: {}` and `affinity: {}` are no constraint at all. */
function nonEmptyObject<T extends object>(value: T | undefined): T | undefined {
  return value && Object.keys(value).length ? value : undefined;
}

/**
 * The spec fields a revision is made of: what every pod of one revision runs. Everything about the pod template
 * derives from this table (its type, podTemplateOf, a rollback's fields, the revisions' OpenAPI schema, the UI's
 * diff and form); the order is the template's key order.
 */
export const templateFields = {
  image: {
    of: (image) => image || undefined,
    default: DEFAULT_IMAGE,
    example: 'nginx:1.27',
    inputs: ['image'],
    section: 'basic',
  },
  port: { default: DEFAULT_PORT, example: 8080, inputs: ['port'], section: 'container' },
  config: { example: 'server { listen 80; }\n', inputs: ['config'], section: 'config' },
  healthCheckPath: { example: '/healthz', inputs: ['healthCheckPath'], section: 'container' },
  resources: {
    of: resourcesOf,
    example: { requests: { cpu: '50m' }, limits: { memory: '64Mi' } },
    inputs: [
      'resources.requests.cpu',
      'resources.requests.memory',
      'resources.limits.cpu',
      'resources.limits.memory',
    ],
    section: 'container',
  },
  priorityClassName: {
    of: (name) => name || undefined,
    example: 'high-priority',
    inputs: ['priorityClassName'],
    section: 'placement',
  },
  nodeSelector: {
    of: nonEmptyObject,
    example: { disktype: 'ssd' },
    inputs: ['nodeSelector'],
    section: 'placement',
  },
  tolerations: {
    of: (tolerations) => (tolerations?.length ? tolerations : undefined),
    example: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
    inputs: [],
  },
  affinity: {
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
  },
  // No `of`: [] (no spread at all) is not the same template as unset (the default spread, see podFor).
  topologySpreadConstraints: {
    example: [{ maxSkew: 2, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'DoNotSchedule' }],
    inputs: [],
  },
  // --- TLS (issue 34) ---
  tls: {
    of: (tls) => (tls?.secretName ? { secretName: tls.secretName } : undefined),
    example: { secretName: 'web-tls' },
    inputs: ['tls.secretName'],
    section: 'tls',
  },
  // --- end TLS ---
} satisfies { [K in keyof NginxSpec]?: TemplateField<K> };

export type TemplateFieldName = keyof typeof templateFields;

/**
 * The spec fields outside the pod template (how many pods, how they roll, what else is kept for them): with the
 * table, every spec field exactly once, so a new spec field is a template field or said not to be.
 */
export const NON_TEMPLATE_FIELDS = {
  replicas: true,
  service: true,
  strategy: true,
  minReadySeconds: true,
  progressDeadlineSeconds: true,
  revisionHistoryLimit: true,
  paused: true,
  disruptionBudget: true,
  analysis: true,
  rollbackOnFailure: true,
  ingress: true,
} satisfies { [K in Exclude<keyof NginxSpec, TemplateFieldName>]: true };

/** The spec fields a revision is made of (a rollback writes exactly these), in the table's order. */
export const TEMPLATE_FIELDS = Object.keys(templateFields) as TemplateFieldName[];

type DefaultedField = {
  [K in TemplateFieldName]: (typeof templateFields)[K] extends { default: unknown } ? K : never;
}[TemplateFieldName];

type Flat<T> = { [K in keyof T]: T[K] };

/**
 * What every pod of one revision runs, in the spec's own terms: the part of the spec a rollout moves pods to.
 * Defaults are filled in, so `image: nginx:latest` and no image are the same template.
 */
export type NginxPodTemplate = Flat<
  { [K in DefaultedField]: NonNullable<NginxSpec[K]> } & {
    [K in Exclude<TemplateFieldName, DefaultedField>]?: NginxSpec[K];
  }
>;
