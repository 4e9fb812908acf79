import { DNS_LABEL, DNS_SUBDOMAIN } from './dns-names.js';
import { NGINX_API_VERSION, NGINX_KIND } from './names.js';
import { nginxSchema, type JsonSchema } from './schema.js';
import type { FieldError, ValidateOptions } from './field-error.js';
import { specTextErrors } from './spec-rules.js';
import { celRuleErrors } from './cel-rules.js';
import type { NginxSpec } from './types.js';

export type { FieldError, ValidateOptions } from './field-error.js';

const DNS1123_LABEL = new RegExp(DNS_LABEL);
const DNS1123_SUBDOMAIN = new RegExp(DNS_SUBDOMAIN);
/** Nginx names end up as a label value on every pod (mycompany.com/nginx), so they are held to a label's 63. */
export const MAX_NAME_LENGTH = 63;

/** Why `name` cannot name a new Nginx (a DNS-1123 label of at most 63), or undefined when it can. */
export function nameError(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_NAME_LENGTH) return `must be no more than ${MAX_NAME_LENGTH} characters`;
  if (!DNS1123_LABEL.test(name))
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  return undefined;
}

/** Why `namespace` cannot be a namespace (a DNS-1123 label of at most 63), or undefined when it can. */
export const namespaceError = nameError;

/**
 * Why `name` cannot be the name of an existing object (a DNS-1123 subdomain of at most 253, what the API server
 * allows for custom resources; objects made elsewhere may be named so), or undefined when it can.
 */
export function objectNameError(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 253) return 'must be no more than 253 characters';
  if (!DNS1123_SUBDOMAIN.test(name)) return 'must be a lowercase RFC 1123 subdomain';
  return undefined;
}

const typeName = (value: unknown): string =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value;

const shown = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? String(value) : text.length > 60 ? `${text.slice(0, 60)}…` : text;
};

function matchesType(schema: JsonSchema, value: unknown): boolean {
  if (schema['x-kubernetes-int-or-string'])
    return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
  switch (schema.type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    default:
      return true;
  }
}

/**
 * Checks `value` against a structural schema the way the API server does for a custom resource, collecting one
 * error per field: wrong type, bounds, lengths, patterns, enums, missing required fields and fields the schema
 * does not declare (which the API server reports under strict field validation); a map's values against
 * `additionalProperties`, its size against `maxProperties` (its keys are a CEL rule's: see celRuleErrors).
 */
export function validateAgainst(
  schema: JsonSchema,
  value: unknown,
  path: string,
  options: ValidateOptions = {},
  errors: FieldError[] = [],
): FieldError[] {
  const invalid = (message: string, reason: FieldError['reason'] = 'FieldValueInvalid') =>
    errors.push({ field: path, reason, message: `Invalid value: ${shown(value)}: ${path} ${message}` });

  if (!matchesType(schema, value)) {
    invalid(
      `must be of type ${schema['x-kubernetes-int-or-string'] ? 'integer or string' : schema.type}, not ${typeName(value)}`,
      'FieldValueTypeInvalid',
    );
    return errors;
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum)
      invalid(`should be greater than or equal to ${schema.minimum}`);
    if (schema.maximum !== undefined && value > schema.maximum)
      invalid(`should be less than or equal to ${schema.maximum}`);
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength)
      invalid(`should be at least ${schema.minLength} chars long`);
    if (schema.maxLength !== undefined && value.length > schema.maxLength)
      invalid(`may not be longer than ${schema.maxLength}`, 'FieldValueTooLong');
    if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
      invalid(`should match '${schema.pattern}'`);
    if (schema.enum && !schema.enum.includes(value))
      invalid(`must be one of ${schema.enum.map((e) => `"${e}"`).join(', ')}`, 'FieldValueNotSupported');
  }
  if (Array.isArray(value) && schema.minItems !== undefined && value.length < schema.minItems)
    errors.push({
      field: path,
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${value.length}: ${path} in body should have at least ${schema.minItems} items`,
    });
  if (Array.isArray(value) && schema.maxItems !== undefined && value.length > schema.maxItems)
    errors.push({
      field: path,
      reason: 'FieldValueTooMany',
      message: `Too many: ${value.length}: must have at most ${schema.maxItems} items`,
    });
  const mapKeys = schema['x-kubernetes-list-map-keys'];
  if (Array.isArray(value) && mapKeys) validateListMap(value, mapKeys, path, errors);
  if (Array.isArray(value) && schema.items)
    value.forEach((item, index) =>
      validateAgainst(schema.items!, item, `${path}[${index}]`, options, errors),
    );

  const isMap = schema.type === 'object' && !schema.properties && schema.additionalProperties;
  if (isMap && typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>);
    if (schema.maxProperties !== undefined && entries.length > schema.maxProperties)
      errors.push({
        field: path,
        reason: 'FieldValueTooMany',
        message: `Too many: ${entries.length}: must have at most ${schema.maxProperties} items`,
      });
    for (const [key, child] of entries)
      // null: no value (a removal in a patch), as for a declared property
      if (child !== null)
        validateAgainst(schema.additionalProperties!, child, `${path}.${key}`, options, errors);
  }
  if (schema.type === 'object' && schema.properties && typeof value === 'object' && value !== null) {
    const object = value as Record<string, unknown>;
    for (const required of schema.required ?? []) {
      const present = Object.hasOwn(object, required) ? object[required] : undefined;
      // null is no value: the API server drops it from an object (none of our fields is nullable), and in a
      // patch it removes the field.
      if (present === undefined ? !options.partial : present === null)
        errors.push({
          field: `${path}.${required}`,
          reason: 'FieldValueRequired',
          message: 'Required value',
        });
    }
    for (const [key, child] of Object.entries(object)) {
      // Own properties only: a key named `constructor` or `toString` is an unknown field, not a schema.
      const childSchema = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined;
      const childPath = path ? `${path}.${key}` : key;
      if (!childSchema)
        errors.push({
          field: childPath,
          reason: 'FieldValueUnknown',
          message: `unknown field "${childPath}"`,
        });
      else if (child === null)
        continue; // no value: dropped from an object, a removal in a patch (a required field: reported above)
      else validateAgainst(childSchema, child, childPath, options, errors);
    }
  }
  return errors;
}

/** Schema errors after which the API server does not run a CRD's CEL rules (nor do we run ours). */
const BLOCKING = new Set<FieldError['reason']>([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTypeInvalid',
]);

/**
 * Whether these errors stop the spec's rules from being checked (the API server then skips the CRD's CEL rules
 * and says so in a cause of its 422: RULES_NOT_CHECKED).
 */
export function rulesSkipped(errors: readonly FieldError[]): boolean {
  return errors.some((error) => BLOCKING.has(error.reason));
}

/** The cause the API server adds when it skipped the rules; its field is a nil path, which it writes `<nil>`. */
export const RULES_NOT_CHECKED: FieldError = {
  field: '<nil>',
  reason: 'FieldValueInvalid',
  message:
    'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

/**
 * Validates an Nginx object (or, with `partial`, a merge patch or apply configuration of one) against the
 * shared schema: apiVersion and kind, metadata.name, and spec. `status` is not checked: it is the controller's.
 */
export function validateNginx(object: unknown, options: ValidateOptions = {}): FieldError[] {
  if (typeof object !== 'object' || object === null || Array.isArray(object))
    return [
      {
        field: '',
        reason: 'FieldValueInvalid',
        message: `the body must be an object, not ${typeName(object)}`,
      },
    ];
  const { apiVersion, kind, metadata, spec } = object as Record<string, unknown>;
  const errors: FieldError[] = [];
  if (!(options.partial && apiVersion === undefined) && apiVersion !== NGINX_API_VERSION)
    errors.push({
      field: 'apiVersion',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${shown(apiVersion)}: supported values: "${NGINX_API_VERSION}"`,
    });
  if (!(options.partial && kind === undefined) && kind !== NGINX_KIND)
    errors.push({
      field: 'kind',
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${shown(kind)}: supported values: "${NGINX_KIND}"`,
    });
  if (
    metadata !== undefined &&
    (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
  )
    errors.push({ field: 'metadata', reason: 'FieldValueInvalid', message: 'must be an object' });
  else {
    const name = (metadata as Record<string, unknown> | undefined)?.name;
    if (name !== undefined) {
      const problem = typeof name === 'string' ? nameError(name) : 'must be a string';
      if (problem)
        errors.push({
          field: 'metadata.name',
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${shown(name)}: ${problem}`,
        });
    }
  }
  const schema = nginxSchema.properties!;
  if (spec === undefined || spec === null) {
    if (!options.partial || spec === null)
      errors.push({ field: 'spec', reason: 'FieldValueRequired', message: 'Required value' });
  } else {
    const before = errors.length;
    validateAgainst(schema.spec!, spec, 'spec', options, errors);
    // As the API server does: the rules run after schema errors too, unless one of those leaves a field they read
    // missing or of the wrong kind (see rulesSkipped).
    if (!rulesSkipped(errors.slice(before)))
      errors.push(
        ...celRuleErrors(schema.spec!, spec, 'spec', options),
        ...specTextErrors(spec as Partial<NginxSpec>),
      );
  }
  for (const key of Object.keys(object))
    if (!Object.hasOwn(schema, key))
      errors.push({ field: key, reason: 'FieldValueUnknown', message: `unknown field "${key}"` });
  return errors;
}

/** `spec.replicas: Invalid value: …` — the API server's one-line summary of field errors. */
export function describeFieldErrors(errors: readonly FieldError[]): string {
  return errors
    .map((e) => (e.message.startsWith(e.field) || !e.field ? e.message : `${e.field}: ${e.message}`))
    .join(', ');
}

/**
 * A list-type map's items: objects with distinct keys. As the API server checks it, the first item that is not an
 * object is the only error (no keys are compared then); null items are type errors only; a key field left out is a
 * key too, so two items without one are duplicates; each duplicated key is reported once, at its first repeat.
 */
function validateListMap(items: unknown[], mapKeys: string[], path: string, errors: FieldError[]): void {
  const notObject = items.findIndex(
    (item) => item !== null && (typeof item !== 'object' || Array.isArray(item)),
  );
  if (notObject >= 0) {
    errors.push({
      field: `${path}[${notObject}]`,
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${shown(items[notObject])}: must be an object for an array of list-type map`,
    });
    return;
  }
  const seen = new Set<string>();
  const reported = new Set<string>();
  items.forEach((item, index) => {
    if (item === null) return;
    const key = Object.fromEntries(mapKeys.map((name) => [name, (item as Record<string, unknown>)[name]]));
    const text = JSON.stringify(key);
    // Each duplicated key once, at its first repeat, as the API server reports it.
    if (seen.has(text) && !reported.has(text)) {
      errors.push({
        field: `${path}[${index}]`,
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: ${text}`,
      });
      reported.add(text);
    }
    seen.add(text);
  });
}
