import type { TSchema } from '@sinclair/typebox';
import { NginxSpecShape } from './schema.js';
import { templateRowOf, type TemplateRow, type TemplateRowsOf } from './template-declaration.js';
import type { NginxSpec } from './types.js';

export type { TemplateFormSection } from './template-declaration.js';

/** How one spec field takes part in the pod template (its row, declared with the field in schema.ts). */
export type TemplateField<K extends keyof NginxSpec> = TemplateRow<NginxSpec[K]>;

type SpecProperties = (typeof NginxSpecShape)['properties'];

/**
 * The spec fields a revision is made of: what every pod of one revision runs, each with its row, as schema.ts marks
 * them with template(…). Everything about the pod template derives from this table (its type, podTemplateOf, a
 * rollback's fields, the revisions' OpenAPI schema, the UI's diff and form); the order is the spec's, which is the
 * template's key order.
 */
export const templateFields = Object.fromEntries(
  Object.entries<TSchema>(NginxSpecShape.properties).flatMap(([name, schema]) => {
    const row = templateRowOf(schema);
    return row ? [[name, row]] : [];
  }),
) as TemplateRowsOf<SpecProperties> satisfies { [K in keyof NginxSpec]?: TemplateField<K> };

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
