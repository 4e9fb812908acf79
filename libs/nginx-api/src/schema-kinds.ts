import { Type, type SchemaOptions, type TSchema, type TUnsafe } from '@sinclair/typebox';
import type { JsonSchema, ValidationRule } from './json-schema.js';

/**
 * The structural-schema shapes TypeBox has no builder for (a string enum, an int-or-string, a map), each with the
 * TypeScript type it admits, and the one pass that turns a TypeBox declaration into the plain schema the CRD and
 * the validation read.
 */

/** The `x-kubernetes-*` keywords and the others a node of a structural schema may carry besides its shape. */
export interface KubeOptions extends SchemaOptions {
  'x-kubernetes-validations'?: ValidationRule[];
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
}

/** A string that is one of `values` (`enum`, not TypeBox's anyOf of constants: a structural schema has no const). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: SchemaOptions = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** `x-kubernetes-int-or-string`: an integer or a string; `minimum` applies to the integer, `pattern` to the string. */
export const IntOrString = (options: SchemaOptions = {}): TUnsafe<number | string> =>
  Type.Unsafe<number | string>({
    'x-kubernetes-int-or-string': true,
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    ...options,
  });

/** An object keyed freely, each value checked against `values` (`additionalProperties`). */
export const MapOf = <V extends TSchema>(values: V, options: KubeOptions = {}) =>
  Type.Unsafe<Record<string, V['static']>>({ type: 'object', additionalProperties: values, ...options });

/** An object the schema does not describe (metadata: the API server checks it itself). */
export const OpaqueObject = <T>(options: SchemaOptions = {}) =>
  Type.Unsafe<T>({ type: 'object', ...options });

/**
 * The order of a node's keys in the CRD manifest: the shape first, then its bounds, then what it contains. TypeBox
 * builds nodes with its own key order (options first), so the manifest's order is fixed here once.
 */
const KEY_ORDER = [
  'x-kubernetes-int-or-string',
  'anyOf',
  'type',
  'format',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'items',
  'pattern',
  'enum',
  'default',
  'description',
  'maxProperties',
  'required',
  'properties',
  'additionalProperties',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-validations',
];
const rank = (key: string) => (KEY_ORDER.includes(key) ? KEY_ORDER.indexOf(key) : KEY_ORDER.length);

const SCHEMA_VALUED = new Set(['properties', 'additionalProperties', 'items', 'anyOf']);

const made = new WeakMap<object, JsonSchema>();

/**
 * The plain structural schema of a TypeBox declaration: TypeBox's symbol keys dropped (the API server refuses
 * unknown keys, and they are not JSON), keys in KEY_ORDER. A node the declaration shares (one term used in two
 * places) stays one object, which the manifest writes once (a YAML anchor). Pure: the declaration is left as it is.
 */
export function structural(schema: TSchema | JsonSchema): JsonSchema {
  let plain = made.get(schema);
  if (!plain) made.set(schema, (plain = plainCopy(schema)));
  return plain;
}

function plainCopy(schema: TSchema | JsonSchema): JsonSchema {
  const keys = Object.keys(schema).sort((a, b) => rank(a) - rank(b));
  const source = schema as Record<string, unknown>;
  return Object.fromEntries(
    keys.map((key) => {
      const value = source[key];
      if (!SCHEMA_VALUED.has(key)) return [key, structuredClone(value)];
      if (key === 'properties')
        return [
          key,
          Object.fromEntries(
            Object.entries(value as Record<string, TSchema>).map(([name, child]) => [
              name,
              structural(child),
            ]),
          ),
        ];
      if (key === 'anyOf') return [key, (value as TSchema[]).map((child) => structural(child))];
      return [key, structural(value as TSchema)];
    }),
  ) as JsonSchema;
}
