import { celEnv, celFunc, celMethod, CelScalar, isCelError, parse, plan, type CelInput } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import type { FieldError } from './field-error.js';
import type { JsonSchema, ValidationRule } from './json-schema.js';
import { quantityValue } from './quantity.js';

/**
 * The schema's own CEL rules (`x-kubernetes-validations`), evaluated as the API server evaluates a CRD's: the same
 * expressions, on the same values, reported with the same field paths and messages.
 */

function quantityOf(text: string): number {
  const value = quantityValue(text);
  if (Number.isNaN(value)) throw new Error(`quantities must match the regular expression: ${text}`);
  return value;
}

/**
 * Kubernetes' CEL library, as far as the schema's rules use it, on top of CEL's standard functions and the strings
 * extension (`indexOf`, …): `quantity()`, `isQuantity()` and `compareTo`. A quantity is held as its numeric value
 * (a double): exact enough to compare the requests and limits of one container.
 */
const KUBERNETES_FUNCS = [
  celFunc('quantity', [CelScalar.STRING], CelScalar.DOUBLE, quantityOf),
  celFunc('isQuantity', [CelScalar.STRING], CelScalar.BOOL, (text) => !Number.isNaN(quantityValue(text))),
  celMethod('compareTo', CelScalar.DOUBLE, [CelScalar.DOUBLE], CelScalar.INT, function (other) {
    return this < other ? -1n : this > other ? 1n : 0n;
  }),
];

const env = celEnv({ funcs: [...strings, ...KUBERNETES_FUNCS] });

type Program = ReturnType<typeof plan>;
const programs = new Map<string, Program>();

/** The rule's program, parsed and planned once (the rules are the schema's: a fixed, small set). */
function programOf(rule: string): Program {
  let program = programs.get(rule);
  if (!program) programs.set(rule, (program = plan(env, parse(rule))));
  return program;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema of `key` in an object: a declared property, else a map's values; undefined for an unknown field. */
function childSchema(schema: JsonSchema, key: string): JsonSchema | undefined {
  if (schema.properties) return Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
  return schema.additionalProperties;
}

/**
 * `value` as the API server hands it to CEL: integers of integer (and int-or-string) fields as CEL ints, other
 * numbers as doubles; nulls and unknown fields dropped (the API server prunes both before the rules run).
 */
export function celValue(schema: JsonSchema, value: unknown): CelInput {
  if (Array.isArray(value)) return value.map((item) => celValue(schema.items ?? {}, item)) as CelInput;
  if (isObject(value)) {
    const entries: [string, unknown][] = [];
    for (const [key, child] of Object.entries(value)) {
      const keySchema = childSchema(schema, key);
      if (child !== null && keySchema) entries.push([key, celValue(keySchema, child)]);
    }
    return Object.fromEntries(entries) as CelInput;
  }
  const integral = schema.type === 'integer' || schema['x-kubernetes-int-or-string'] === true;
  return (
    typeof value === 'number' && integral && Number.isInteger(value) ? BigInt(value) : value
  ) as CelInput;
}

/** The cause of a failed rule, as kube-apiserver writes it. */
function ruleError(rule: ValidationRule, path: string, problem?: string): FieldError {
  return {
    field: `${path}${rule.fieldPath ?? ''}`,
    reason: rule.reason ?? 'FieldValueInvalid',
    message: problem
      ? `Invalid value: "object": ${problem} evaluating rule: ${rule.rule}`
      : `Invalid value: ${rule.message ?? `failed rule: ${rule.rule}`}`,
  };
}

function evaluate(rules: readonly ValidationRule[], schema: JsonSchema, value: unknown, path: string) {
  const self = celValue(schema, value);
  const errors: FieldError[] = [];
  for (const rule of rules) {
    const result = programOf(rule.rule)({ self });
    if (isCelError(result)) errors.push(ruleError(rule, path, result.message));
    else if (result !== true) errors.push(ruleError(rule, path));
  }
  return errors;
}

export interface CelRuleOptions {
  /**
   * `value` is a patch (a merge patch or an apply configuration): only the rules that read nothing but what a
   * patch carries whole run, those on a map's keys and inside list items; the others relate fields the patch may
   * leave out, and the API server checks them on the patched object.
   */
  partial?: boolean;
}

/**
 * The errors of every CEL rule of `schema` and its descendants that `value` (at `path`) breaks. `value` has passed
 * the schema without errors that block rules (see rulesSkipped in validation.ts). A rule's node comes before its
 * children.
 */
export function celRuleErrors(
  schema: JsonSchema,
  value: unknown,
  path: string,
  options: CelRuleOptions = {},
  inItem = false,
): FieldError[] {
  const errors: FieldError[] = [];
  const rules = schema['x-kubernetes-validations'];
  const isMap = !schema.properties && schema.additionalProperties !== undefined;
  if (rules && (!options.partial || inItem || isMap)) errors.push(...evaluate(rules, schema, value, path));
  if (Array.isArray(value)) {
    if (schema.items)
      value.forEach((item, index) =>
        errors.push(...celRuleErrors(schema.items!, item, `${path}[${index}]`, options, true)),
      );
  } else if (isObject(value)) {
    for (const [key, child] of Object.entries(value)) {
      const keySchema = childSchema(schema, key);
      if (keySchema && child !== null)
        errors.push(...celRuleErrors(keySchema, child, `${path}.${key}`, options, inItem));
    }
  }
  return errors;
}
