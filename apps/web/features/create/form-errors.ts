import {
  imageAllowlistErrors,
  namespaceError,
  nameError,
  quantityValue,
  validateNginx,
  type FieldError,
  type ImageAllowlist,
} from '@ngx/nginx-api';
import { errorMessage, StatusError, type StatusCause } from '@/lib/api/api-client';
import { LINE_FIELDS } from '@/features/create/line-fields';
import {
  isIncluded,
  manifestOf,
  SPEC_PATHS,
  type CreateFormValues,
} from '@/features/create/create-form-fields';

/** Messages by field path (`metadata.name`, `spec.service.port`). */
export type FieldErrors = Record<string, string>;

// A field name that starts a message (`maxSurge and …`) keeps its spelling.
const capitalised = (text: string) =>
  /^[a-z]+[A-Z]/.test(text) ? text : text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A validation message without the "Invalid value: x: spec.replicas " prefix the form already shows. A rule's
 * message has no value ("Invalid value: limits must not be below requests"): only the words before it go.
 */
export function shortMessage(field: string, message: string): string {
  let text = message.replace(/^Invalid value: (?:(?:["{[\d-]|true\b|false\b|null\b).*?: )?/, '');
  if (text.startsWith(`${field} `)) text = text.slice(field.length + 1);
  return capitalised(text);
}

/**
 * The input a rule error about a whole object is shown at: the spec's cross-field rules (schema.ts
 * `x-kubernetes-validations`) name the object (`spec.resources`), the form shows them at the field to change.
 */
export function fieldOfRule(field: string, values: CreateFormValues): string {
  switch (field) {
    case 'spec.resources': {
      const below = (name: 'cpu' | 'memory') =>
        quantityValue(values.spec[`resources.limits.${name}`] ?? '') <
        quantityValue(values.spec[`resources.requests.${name}`] ?? '');
      return below('cpu') || !below('memory') ? 'spec.resources.limits.cpu' : 'spec.resources.limits.memory';
    }
    case 'spec.service':
      return 'spec.service.nodePort';
    case 'spec.strategy':
      return 'spec.strategy.type';
    case 'spec.strategy.rollingUpdate':
      return 'spec.strategy.rollingUpdate.maxUnavailable';
    case 'spec.disruptionBudget':
      return `spec.disruptionBudget.${values.budget || 'minAvailable'}`;
    case 'spec.strategy.canary':
      return 'spec.strategy.canary.steps';
    case 'spec.tls':
      return 'spec.tls.secretName';
    case 'spec.ingress':
      return 'spec.ingress.host';
    default: {
      // A line-edited field's causes name an entry (`spec.strategy.canary.steps[1].setWeight`, `spec.nodeSelector[k]`).
      const line = Object.keys(LINE_FIELDS).find(
        (path) => field.startsWith(`spec.${path}[`) || field.startsWith(`spec.${path}.`),
      );
      return line ? `spec.${line}` : field;
    }
  }
}

/**
 * The create form's field errors, keyed by the input's field path, with the API's own checks and messages:
 * name and namespace, the shared schema and spec rules, and spec.image against the server's image allow-list.
 * The first error of a field wins; an empty object means the server should accept the manifest.
 */
export function createFormErrors(
  values: CreateFormValues,
  imageAllowlist: ImageAllowlist | undefined,
): FieldErrors {
  const errors: FieldErrors = {};
  const nameProblem = nameError(values.name);
  if (nameProblem) errors['metadata.name'] = capitalised(nameProblem);
  const namespaceProblem = namespaceError(values.namespace);
  if (namespaceProblem) errors['metadata.namespace'] = capitalised(namespaceProblem);
  // A bound chosen but not filled in: the rule's "set exactly one" would not say which input is missing.
  if (values.budget && !values.spec[`disruptionBudget.${values.budget}`]?.trim())
    errors[`spec.disruptionBudget.${values.budget}`] = 'Required';
  const manifest = manifestOf(values);
  const found: FieldError[] = [
    ...validateNginx(manifest),
    ...imageAllowlistErrors(manifest.spec.image, imageAllowlist),
  ];
  for (const error of found) {
    if (error.field === 'metadata.name') continue;
    const field = fieldOfRule(error.field, values);
    errors[field] ??=
      error.reason === 'FieldValueRequired' ? 'Required' : shortMessage(error.field, error.message);
  }
  return errors;
}

/** The fields the form shows an input for, given its values: where a server cause can be put. */
export function formFields(values: CreateFormValues): string[] {
  return [
    'metadata.name',
    'metadata.namespace',
    ...SPEC_PATHS.filter((path) => isIncluded(path, values)).map((path) => `spec.${path}`),
  ];
}

/**
 * Refusals whose Status names no field but clearly concerns one: a name already taken, a namespace that does not
 * exist. Shown next to that field like the API server's own causes.
 */
export function impliedCauses(error: StatusError): StatusCause[] {
  const details = error.status?.details;
  if (error.reason === 'AlreadyExists')
    return [{ field: 'metadata.name', message: 'an Nginx with this name already exists in the namespace' }];
  if (error.code === 404 && details?.kind === 'namespaces')
    return [{ field: 'metadata.namespace', message: `namespace "${details.name ?? ''}" does not exist` }];
  return [];
}

/** How a refused create is shown: messages next to the fields they concern, and an alert for the rest. */
export interface Refusal {
  fields: FieldErrors;
  /** Set when some of the refusal has no field to stand at (or the error is not a Status at all). */
  alert?: string;
}

/**
 * Splits a refused create into field messages (only for `fields`, the inputs on screen; none in YAML mode,
 * pass []) and an alert with the server's message, code and reason. `values` homes the spec rules' causes.
 */
export function refusalOf(error: unknown, fields: readonly string[], values?: CreateFormValues): Refusal {
  if (!(error instanceof StatusError)) return { fields: {}, alert: errorMessage(error) };
  const mapped: FieldErrors = {};
  let unmapped = false;
  for (const cause of [...error.causes, ...impliedCauses(error)]) {
    const raw = cause.field ?? '';
    const field = values ? fieldOfRule(raw, values) : raw;
    const message = shortMessage(raw, cause.message ?? cause.reason ?? 'invalid');
    if (fields.includes(field)) mapped[field] = mapped[field] ? `${mapped[field]}; ${message}` : message;
    else unmapped = true;
  }
  const alert =
    Object.keys(mapped).length === 0 || unmapped
      ? `${error.message}${error.code ? ` (${error.code} ${error.reason})` : ''}`
      : undefined;
  return { fields: mapped, alert };
}
