import {
  NGINX_API_VERSION,
  NGINX_GROUP,
  NGINX_KIND,
  NGINX_VERSION,
  describeFieldErrors,
  imageAllowlistErrors,
  configErrors,
  nginxSpecSchema,
  rulesSkipped,
  RULES_NOT_CHECKED,
  validateAgainst,
  validateNginx,
  type FieldError,
  type ImageAllowlist,
} from '@ngx/nginx-api';
import { StatusException } from '../http/kube-status.js';
import { BODY_TYPES } from '../http/request-body.js';
import type { Subresource } from './nginx-paths.js';

/**
 * Checks of write bodies before anything is sent to the API server, with the API server's answers: 400 for a
 * body that does not fit the request (names, namespaces, unknown fields under strict validation), 422 Invalid
 * with one cause per field for values the schema refuses. The API server checks again; these make the answer
 * name the field even where its own message would not, and keep bad writes off the wire.
 */

interface Target {
  namespace: string;
  /** The name in the URL; undefined for a create. */
  name?: string;
  fieldValidation?: string;
  /** IMAGE_ALLOWLIST: spec.image must fall under it (undefined: any image). */
  imageAllowlist?: ImageAllowlist;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `object[key]` if it is the object's own (JSON bodies have only own keys; prototype names are not keys). */
const own = (object: unknown, key: string): unknown =>
  isObject(object) && Object.hasOwn(object, key) ? object[key] : undefined;

/**
 * spec.image of a whole spec against the allow-list (absent: the default image the API server fills in), unless
 * the schema already refused it.
 */
function specImageErrors(spec: unknown, allowlist: ImageAllowlist | undefined, errors: FieldError[]) {
  if (!isObject(spec) || errors.some((e) => e.field === 'spec.image')) return [];
  return imageAllowlistErrors(own(spec, 'image'), allowlist);
}

/** 422 Invalid for an Nginx (a Scale's replicas too: the API server judges the Nginx they land in). */
function invalid(name: string | undefined, errors: readonly FieldError[]): StatusException {
  const causes = errors.map(({ reason, message, field }) => ({ reason, message, field }));
  return new StatusException(
    422,
    `${NGINX_KIND}.${NGINX_GROUP} "${name ?? ''}" is invalid: ${describeFieldErrors(errors)}`,
    { name, group: NGINX_GROUP, kind: NGINX_KIND, causes },
  );
}

/**
 * Refuses with 400 (Strict) or lets through unknown fields (Warn, the API server's default, and Ignore: the API
 * server drops them, with a Warning under Warn).
 */
function refuseUnknown(errors: FieldError[], fieldValidation: string | undefined): FieldError[] {
  const unknown = errors.filter((e) => e.reason === 'FieldValueUnknown');
  const rest = errors.filter((e) => e.reason !== 'FieldValueUnknown');
  if (unknown.length > 0 && fieldValidation === 'Strict')
    // The API server's decoder refuses them before validation (whatever else is wrong), with no causes.
    throw new StatusException(
      400,
      `${NGINX_KIND} in version "${NGINX_VERSION}" cannot be handled as a ${NGINX_KIND}: strict decoding error: ${unknown.map((e) => e.message).join(', ')}`,
    );
  return rest;
}

function checkPlacement(metadata: unknown, target: Target): void {
  const { name, namespace } = (isObject(metadata) ? metadata : {}) as { name?: unknown; namespace?: unknown };
  if (namespace !== undefined && namespace !== target.namespace)
    throw new StatusException(
      400,
      'the namespace of the provided object does not match the namespace sent on the request',
      {
        causes: [
          {
            reason: 'FieldValueInvalid',
            field: 'metadata.namespace',
            message: `must be "${target.namespace}"`,
          },
        ],
      },
    );
  if (target.name !== undefined && name !== undefined && name !== target.name)
    throw new StatusException(
      400,
      `the name of the object (${String(name)}) does not match the name on the URL (${target.name})`,
      {
        causes: [
          { reason: 'FieldValueInvalid', field: 'metadata.name', message: `must be "${target.name}"` },
        ],
      },
    );
}

/**
 * The type of a whole object as the API server's decoder reads it before anything else: 400 when the body is not
 * an object, names no kind, or names another apiVersion; 422 (on `kind`) for another kind of this apiVersion.
 */
function checkTypeMeta(object: unknown, name: string | undefined): void {
  const unrecognized = (why: string) =>
    new StatusException(400, `the object provided is unrecognized (must be of type ${NGINX_KIND}): ${why}`);
  if (!isObject(object)) throw unrecognized(`the body is ${object === null ? 'null' : 'not a JSON object'}`);
  const { apiVersion, kind } = object;
  if (typeof kind !== 'string' || kind === '') throw unrecognized("Object 'Kind' is missing");
  if (apiVersion !== NGINX_API_VERSION)
    throw new StatusException(
      400,
      `the API version in the data (${typeof apiVersion === 'string' ? apiVersion : ''}) does not match the expected API version (${NGINX_API_VERSION})`,
    );
  if (kind !== NGINX_KIND) {
    const message = `Invalid value: ${JSON.stringify(kind)}: must be ${NGINX_KIND}`;
    throw new StatusException(422, `${kind}.${NGINX_GROUP} "${name ?? ''}" is invalid: kind: ${message}`, {
      name,
      group: NGINX_GROUP,
      kind,
      causes: [{ reason: 'FieldValueInvalid', field: 'kind', message }],
    });
  }
}

/**
 * The check the API server makes of the field the CRD's scale subresource reads (specReplicasPath
 * `.spec.replicas`), on top of the schema's: an integer, not negative. Its field keeps the path's leading dot.
 */
function scaleReplicasErrors(spec: unknown): FieldError[] {
  if (spec !== undefined && spec !== null && !isObject(spec))
    return [
      {
        field: '.spec.replicas',
        reason: 'FieldValueInvalid',
        message: `Invalid value: 0: .spec.replicas accessor error: ${goValue(spec)} is of the type ${goType(spec)}, expected map[string]interface{}`,
      },
    ];
  if (!isObject(spec) || !Object.hasOwn(spec, 'replicas') || spec.replicas === null) return [];
  const replicas = spec.replicas;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas))
    return [
      {
        field: '.spec.replicas',
        reason: 'FieldValueInvalid',
        message: `Invalid value: 0: .spec.replicas accessor error: ${String(replicas)} is of the type ${goType(replicas)}, expected int64`,
      },
    ];
  if (replicas < 0)
    return [
      {
        field: '.spec.replicas',
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${replicas}: should be a non-negative integer`,
      },
    ];
  return [];
}

/** The Go type a JSON value decodes to in an unstructured object (as the API server's messages name it). */
function goType(value: unknown): string {
  if (typeof value === 'number') return 'float64';
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  return Array.isArray(value) ? '[]interface {}' : 'map[string]interface {}';
}

/** A JSON value as Go's %v prints it decoded (`[a b]` for an array), as the API server's accessor errors show it. */
function goValue(value: unknown): string {
  return Array.isArray(value) ? `[${value.map(goValue).join(' ')}]` : String(value);
}

/** A whole Nginx for create or replace (or a status update, whose spec the API server ignores). */
export function checkNginx(object: unknown, target: Target & { status?: boolean }): void {
  const metadata = isObject(object) ? (object.metadata as Record<string, unknown> | undefined) : undefined;
  const name = typeof metadata?.name === 'string' ? metadata.name : target.name;
  checkTypeMeta(object, name);
  let errors = refuseUnknown(validateNginx(object), target.fieldValidation);
  if (isObject(object)) {
    checkPlacement(metadata, target);
    if (
      target.name === undefined &&
      metadata?.name === undefined &&
      typeof metadata?.generateName !== 'string'
    )
      errors.push({
        field: 'metadata.name',
        reason: 'FieldValueRequired',
        message: 'Required value: name or generateName is required',
      });
    if (target.name !== undefined && metadata?.name === undefined)
      errors.push({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value' });
    errors.push(...scaleReplicasErrors(object.spec));
    if (rulesSkipped(errors)) errors.push(RULES_NOT_CHECKED);
    errors.push(...specImageErrors(object.spec, target.imageAllowlist, errors));
  }
  if (target.status)
    errors = errors.filter((e) => !e.field.replace(/^\./, '').startsWith('spec') && e !== RULES_NOT_CHECKED);
  if (errors.length > 0) throw invalid(name, errors);
}

/**
 * An autoscaling/v1 Scale for the scale subresource, as the API server takes it: apiVersion and kind may be left
 * out, but not be others (400); spec.replicas (absent: 0) is refused as the Nginx it lands in would refuse it.
 */
export function checkScale(object: unknown, target: Target): void {
  if (!isObject(object))
    throw new StatusException(
      400,
      'the object provided is unrecognized (must be of type Scale): not a JSON object',
    );
  const { apiVersion, kind } = object;
  if (
    (apiVersion !== undefined && apiVersion !== 'autoscaling/v1') ||
    (kind !== undefined && kind !== 'Scale')
  )
    throw new StatusException(
      400,
      `the object provided is unrecognized (must be of type Scale): ${String(kind)} of ${String(apiVersion)}`,
    );
  checkPlacement(object.metadata, target);
  const errors = replicasErrors(object.spec);
  if (errors.length > 0) throw invalid(target.name, errors);
}

/** spec.replicas of a Scale or a patch of one, checked as the Nginx it lands in (the schema, then the scale path). */
function replicasErrors(spec: unknown): FieldError[] {
  const replicas = own(spec, 'replicas');
  if (replicas === undefined || replicas === null) return [];
  return [
    ...validateAgainst(nginxSpecSchema.properties!.replicas!, replicas, 'spec.replicas'),
    ...scaleReplicasErrors(spec),
  ];
}

const JSON_PATCH_OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/**
 * A patch of an Nginx or of one of its subresources. Merge patches and apply configurations are partial
 * objects, checked field by field; JSON patches are checked for shape and for the values they put at
 * /spec/replicas and /spec/image (the API server checks the patched result).
 */
export function checkPatch(
  patch: unknown,
  type: string,
  target: Target & { name: string; subresource?: Subresource },
): void {
  if (type === BODY_TYPES.jsonPatch) return checkJsonPatch(patch, target);
  if (!isObject(patch)) throw new StatusException(400, `a ${type} body must be an object`);
  if (target.subresource === 'scale') {
    const errors = replicasErrors(patch.spec);
    if (errors.length > 0) throw invalid(target.name, errors);
    return;
  }
  checkPlacement(patch.metadata, target);
  if (target.subresource === 'status') return;
  const spec = own(patch, 'spec');
  const errors = refuseUnknown(validateNginx(patch, { partial: true }), target.fieldValidation);
  errors.push(...scaleReplicasErrors(spec));
  if (rulesSkipped(errors)) errors.push(RULES_NOT_CHECKED);
  // Only an image the patch names is checked; null removes it, so the default applies again.
  if (isObject(spec) && Object.hasOwn(spec, 'image') && !errors.some((e) => e.field === 'spec.image'))
    errors.push(...imageAllowlistErrors(spec.image ?? undefined, target.imageAllowlist));
  if (errors.length > 0) throw invalid(target.name, errors);
}

function checkJsonPatch(patch: unknown, target: Target & { name: string }): void {
  if (!Array.isArray(patch) || patch.length === 0)
    throw new StatusException(400, 'a JSON patch must be a non-empty array of operations');
  const errors: FieldError[] = [];
  patch.forEach((op: unknown, index) => {
    const where = `[${index}]`;
    if (
      !isObject(op) ||
      typeof op.op !== 'string' ||
      !JSON_PATCH_OPS.has(op.op) ||
      typeof op.path !== 'string'
    )
      throw new StatusException(
        400,
        `JSON patch operation ${where} needs "op" (${[...JSON_PATCH_OPS].join(', ')}) and "path"`,
      );
    if (op.op === 'add' || op.op === 'replace') {
      if (op.path === '/spec/replicas')
        errors.push(
          ...(op.value === null
            ? [{ field: 'spec.replicas', reason: 'FieldValueRequired' as const, message: 'Required value' }]
            : replicasErrors({ replicas: op.value })),
        );
      if (op.path === '/spec/image')
        errors.push(...validateAgainst(nginxSpecSchema.properties!.image!, op.value, 'spec.image'));
      if (op.path === '/spec/config') {
        const schemaErrors = validateAgainst(nginxSpecSchema.properties!.config!, op.value, 'spec.config');
        errors.push(...(schemaErrors.length ? schemaErrors : configErrors(op.value as string)));
      }
      if (op.path === '/spec' && isObject(op.value))
        errors.push(...validateAgainst(nginxSpecSchema, op.value, 'spec'));
    }
    if (target.imageAllowlist) errors.push(...jsonPatchImageErrors(op, target.imageAllowlist, errors));
  });
  if (errors.length > 0) throw invalid(target.name, refuseUnknown(errors, target.fieldValidation));
}

/** The JSON pointers whose add, replace, copy or move sets spec.image. */
const IMAGE_POINTERS = new Set(['', '/spec', '/spec/image']);

/**
 * What one JSON patch operation makes spec.image, checked against the allow-list as far as the operation alone
 * tells: a value put there, a removal (the default applies again), and no copy or move into it (its value is
 * the object's, unknown here).
 */
function jsonPatchImageErrors(
  op: Record<string, unknown>,
  allowlist: ImageAllowlist,
  errors: FieldError[],
): FieldError[] {
  const path = op.path as string;
  switch (op.op) {
    case 'add':
    case 'replace':
      if (path === '/spec/image')
        return errors.some((e) => e.field === 'spec.image') ? [] : imageAllowlistErrors(op.value, allowlist);
      if (path === '/spec') return specImageErrors(op.value, allowlist, errors);
      if (path === '') return specImageErrors(own(op.value, 'spec'), allowlist, errors);
      return [];
    case 'remove':
      return path === '/spec/image' ? imageAllowlistErrors(undefined, allowlist) : [];
    case 'copy':
    case 'move':
      if (IMAGE_POINTERS.has(path))
        return [
          {
            field: 'spec.image',
            reason: 'FieldValueForbidden',
            message: `Forbidden: with an image allow-list, spec.image is set by value (add or replace), not by ${op.op}`,
          },
        ];
      return op.op === 'move' && op.from === '/spec/image' ? imageAllowlistErrors(undefined, allowlist) : [];
    default:
      return [];
  }
}

/** A DeleteOptions body (kubectl sends one): only its known fields, with values the API server takes. */
export function checkDeleteOptions(options: unknown): void {
  if (!isObject(options)) throw new StatusException(400, 'the DeleteOptions body must be an object');
  const { propagationPolicy, preconditions, gracePeriodSeconds } = options;
  if (
    propagationPolicy !== undefined &&
    !['Foreground', 'Background', 'Orphan'].includes(propagationPolicy as string)
  ) {
    const message = `Unsupported value: ${JSON.stringify(propagationPolicy)}: supported values: "Foreground", "Background", "Orphan", "nil"`;
    throw new StatusException(422, `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: ${message}`, {
      group: 'meta.k8s.io',
      kind: 'DeleteOptions',
      causes: [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message }],
    });
  }
  if (preconditions !== undefined && !isObject(preconditions))
    throw new StatusException(400, 'preconditions must be an object with uid and/or resourceVersion', {
      causes: [{ reason: 'FieldValueInvalid', field: 'preconditions', message: 'must be an object' }],
    });
  if (
    gracePeriodSeconds !== undefined &&
    !(Number.isInteger(gracePeriodSeconds) && (gracePeriodSeconds as number) >= 0)
  )
    throw new StatusException(400, 'gracePeriodSeconds must be a non-negative integer', {
      causes: [
        {
          reason: 'FieldValueInvalid',
          field: 'gracePeriodSeconds',
          message: 'must be a non-negative integer',
        },
      ],
    });
}
