import type { Static, TSchema } from '@sinclair/typebox';

/**
 * The mark that makes a spec property a pod template field, put on its declaration in schema.ts together with the
 * field's row (how it takes part in the template): template-fields.ts reads the rows back off the spec's schema.
 */

/** The create form's sections that show template fields (next to fields outside the template). */
export type TemplateFormSection = 'basic' | 'container' | 'placement' | 'tls' | 'config';

/** How one spec field, of type `V` (undefined included when the field is optional), takes part in the pod template. */
export interface TemplateRow<V> {
  /** The template's value of the field from the spec's; an empty value reads as absent (undefined). */
  of?: (value: V) => V | undefined;
  /** Filled in when the spec leaves the field out: a template always has the field then. */
  default?: NonNullable<V>;
  /** A valid value other than the default, for the specs that check the field reaches the schema and the pods. */
  example: NonNullable<V>;
  /** The spec paths (leaves under the field) a form edits it through, in the order shown; none when no form does. */
  inputs: readonly string[];
  /**
   * The create form's section showing `inputs`, exactly when there are some; a section shows its template fields in
   * the spec's order.
   */
  section?: TemplateFormSection;
}

/**
 * Where a declaration keeps its row: a symbol key, which structural() (Object.keys) never copies into the CRD,
 * and which Type.Optional's spread keeps.
 */
export const TEMPLATE_ROW = Symbol('nginx-api.templateRow');

/** A schema marked as a template field with row `R`. */
export type TemplateMarked<S extends TSchema, R> = S & { readonly [TEMPLATE_ROW]: R };

/**
 * The row a declaration of value type `V` carries, typed against it: TemplateRow, with `default` required when it
 * was given (so a template's type knows which fields it always has).
 */
export type DeclaredRow<V, D> = TemplateRow<V> &
  (undefined extends D ? unknown : { default: NonNullable<V> });

/**
 * `schema` marked as a spec field of the pod template, `row` saying how: its value type is the schema's own, and
 * (the field being optional in the spec) absent. The schema itself is left as it is.
 */
export function template<S extends TSchema, D extends NonNullable<Static<S>> | undefined = undefined>(
  schema: S,
  row: TemplateRow<Static<S> | undefined> & { default?: D },
): TemplateMarked<S, DeclaredRow<Static<S> | undefined, D>> {
  // `default` is given exactly when D is not undefined, which TypeScript cannot follow into DeclaredRow.
  return { ...schema, [TEMPLATE_ROW]: row as DeclaredRow<Static<S> | undefined, D> };
}

/** The row a template field's declaration carries, or undefined for a schema that is not marked. */
export function templateRowOf(schema: TSchema): TemplateRow<unknown> | undefined {
  return (schema as Partial<TemplateMarked<TSchema, TemplateRow<unknown>>>)[TEMPLATE_ROW];
}

/** The rows of the marked properties of an object's `properties`, keyed by property (the unmarked left out). */
export type TemplateRowsOf<P> = {
  [K in keyof P as P[K] extends TemplateMarked<TSchema, unknown> ? K : never]: P[K] extends TemplateMarked<
    TSchema,
    infer R
  >
    ? R
    : never;
};
