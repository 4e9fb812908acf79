import { QUALIFIED_NAME_PATTERN } from './dns-names.js';
import type { FieldError } from './field-error.js';
import type { JsonSchema, ValidationRule } from './json-schema.js';

export { QUALIFIED_NAME_PATTERN };

/** The longest qualified name: a 253-character prefix, `/` and a 63-character name. */
export const MAX_QUALIFIED_NAME = 317;

/** A label value: empty, or at most 63 alphanumerics, `-`, `_` and `.`, starting and ending alphanumeric. */
export const LABEL_VALUE_PATTERN = '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$';

const qualifiedName = new RegExp(QUALIFIED_NAME_PATTERN);

/** Whether `key` is a qualified name (a label key), its prefix included. */
export function isQualifiedName(key: string): boolean {
  return qualifiedName.test(key) && key.indexOf('/') <= 253;
}

/**
 * A CEL rule of the CRD together with its TypeScript twin: the API server runs `rule`, our API runs `holds` on the
 * same value (the one the rule sits on, already past the schema), with the same message.
 */
interface TwinRule extends ValidationRule {
  holds: (self: Record<string, unknown>) => boolean;
}

const has = (self: Record<string, unknown>, key: string) => self[key] !== undefined && self[key] !== null;

/** On a map of labels (nodeSelector, matchLabels): every key is a qualified name. */
export const LABEL_KEYS_RULE: TwinRule = {
  rule: `self.all(k, k.matches('${QUALIFIED_NAME_PATTERN.replaceAll('\\', '\\\\')}') && k.indexOf('/') <= 253)`,
  message:
    "every key must be a qualified name: an optional DNS subdomain prefix of at most 253 characters and '/', then at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric",
  holds: (self) => Object.keys(self).every((key) => self[key] === null || isQualifiedName(key)),
};

/** On one toleration: what the API server checks of a pod's tolerations beyond each field's own form. */
export const TOLERATION_RULES: TwinRule[] = [
  {
    rule: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
    message: 'value must be empty when operator is Exists',
    holds: (self) => self.operator !== 'Exists' || !has(self, 'value') || self.value === '',
  },
  {
    rule: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
    message: 'operator must be Exists when key is empty',
    holds: (self) => (has(self, 'key') && self.key !== '') || self.operator === 'Exists',
  },
  {
    rule: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
    message: 'tolerationSeconds needs effect NoExecute',
    holds: (self) => !has(self, 'tolerationSeconds') || self.effect === 'NoExecute',
  },
];

/** On one topology spread constraint. */
export const SPREAD_RULES: TwinRule[] = [
  {
    rule: "!has(self.minDomains) || self.whenUnsatisfiable == 'DoNotSchedule'",
    message: 'minDomains needs whenUnsatisfiable DoNotSchedule',
    holds: (self) => !has(self, 'minDomains') || self.whenUnsatisfiable === 'DoNotSchedule',
  },
  {
    rule: '!has(self.matchLabelKeys) || has(self.labelSelector)',
    message: 'matchLabelKeys needs labelSelector',
    holds: (self) => !has(self, 'matchLabelKeys') || has(self, 'labelSelector'),
  },
];

/** The CRD's form of rules: without their twins (the API server refuses unknown keys in a schema). */
export const celOnly = (rules: readonly TwinRule[]): ValidationRule[] =>
  rules.map(({ rule, message }) => ({ rule, message }));

const TWINS = new Map<string, TwinRule>(
  [LABEL_KEYS_RULE, ...TOLERATION_RULES, ...SPREAD_RULES].map((twin) => [twin.rule, twin]),
);

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The errors of the twin rules anywhere under `schema` for `value` (at `path`), as the API server reports a failed
 * CEL rule: the value's path, FieldValueInvalid, `Invalid value: <message>` (kube-apiserver 1.36's words, checked by
 * test/nginx-pod-scheduling.test.ts). `value` has passed the schema
 * without errors that block rules (see rulesSkipped); nulls (removals in a patch) are skipped.
 */
export function twinRuleErrors(schema: JsonSchema, value: unknown, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (Array.isArray(value)) {
    if (schema.items)
      value.forEach((item, index) =>
        errors.push(...twinRuleErrors(schema.items!, item, `${path}[${index}]`)),
      );
    return errors;
  }
  if (!isObject(value)) return errors;
  for (const { rule } of schema['x-kubernetes-validations'] ?? []) {
    const twin = TWINS.get(rule);
    if (twin && !twin.holds(value))
      errors.push({
        field: path,
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${twin.message}`,
      });
  }
  for (const [key, child] of Object.entries(value)) {
    const childSchema =
      schema.properties && Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
    if (childSchema && child !== null) errors.push(...twinRuleErrors(childSchema, child, `${path}.${key}`));
  }
  return errors;
}
