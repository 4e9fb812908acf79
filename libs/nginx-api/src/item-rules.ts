import { QUALIFIED_NAME_PATTERN } from './dns-names.js';
import type { ValidationRule } from './json-schema.js';

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

/** On a map of labels (nodeSelector, matchLabels): every key is a qualified name. */
export const LABEL_KEYS_RULE: ValidationRule = {
  rule: `self.all(k, k.matches('${QUALIFIED_NAME_PATTERN.replaceAll('\\', '\\\\')}') && k.indexOf('/') <= 253)`,
  message:
    "every key must be a qualified name: an optional DNS subdomain prefix of at most 253 characters and '/', then at most 63 alphanumerics, '-', '_' or '.', starting and ending alphanumeric",
};

/** On one toleration: what the API server checks of a pod's tolerations beyond each field's own form. */
export const TOLERATION_RULES: ValidationRule[] = [
  {
    rule: "!has(self.operator) || self.operator != 'Exists' || !has(self.value) || self.value == ''",
    message: 'value must be empty when operator is Exists',
  },
  {
    rule: "(has(self.key) && self.key != '') || (has(self.operator) && self.operator == 'Exists')",
    message: 'operator must be Exists when key is empty',
  },
  {
    rule: "!has(self.tolerationSeconds) || (has(self.effect) && self.effect == 'NoExecute')",
    message: 'tolerationSeconds needs effect NoExecute',
  },
];

/** On one topology spread constraint. */
export const SPREAD_RULES: ValidationRule[] = [
  {
    rule: "!has(self.minDomains) || self.whenUnsatisfiable == 'DoNotSchedule'",
    message: 'minDomains needs whenUnsatisfiable DoNotSchedule',
  },
  {
    rule: '!has(self.matchLabelKeys) || has(self.labelSelector)',
    message: 'matchLabelKeys needs labelSelector',
  },
];
