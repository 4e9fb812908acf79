import {
  NGINX_API_VERSION,
  NGINX_KIND,
  TEMPLATE_FIELDS,
  nginxSpecSchema,
  templateFields,
  type JsonSchema,
  type TemplateField,
  type TemplateFieldName,
  type TemplateFormSection,
} from '@ngx/nginx-api';
import { LINE_FIELDS } from '@/features/create/line-fields';

/** The pod disruption budget's one bound the form sets, or '' for no budget. */
export type BudgetKind = '' | 'minAvailable' | 'maxUnavailable';

/**
 * What the create form holds, all as typed text: `spec` is keyed by the field's path under spec
 * (`replicas`, `strategy.rollingUpdate.maxSurge`); the Service and the budget are switched on separately.
 */
export interface CreateFormValues {
  name: string;
  namespace: string;
  spec: Record<string, string>;
  serviceEnabled: boolean;
  budget: BudgetKind;
}

/** A pod template field the create form edits, with the spec paths it is edited through (the table's `inputs`). */
export interface TemplateInputs {
  field: TemplateFieldName;
  paths: readonly string[];
}

/** The pod template fields that the template table puts in form section `section`, in the table's order. */
export function templateInputsOf(section: TemplateFormSection): readonly TemplateInputs[] {
  return TEMPLATE_FIELDS.flatMap((field) => {
    const row: Pick<TemplateField<typeof field>, 'inputs' | 'section'> = templateFields[field];
    return row.section === section ? [{ field, paths: row.inputs }] : [];
  });
}

const templatePaths = (section: TemplateFormSection) =>
  templateInputsOf(section).flatMap(({ paths }) => paths);

/** The container section: the pod template fields without a section of their own (several inputs in a grid). */
export const CONTAINER_FIELDS = templateInputsOf('container');

/**
 * The form's sections and the spec paths each holds, in the order they are shown: a pod template field's inputs in
 * the section the template table names.
 */
export const SECTIONS = {
  basic: ['replicas', ...templatePaths('basic')],
  rollout: [
    'strategy.type',
    'strategy.rollingUpdate.maxSurge',
    'strategy.rollingUpdate.maxUnavailable',
    'strategy.canary.steps',
    'strategy.canary.maxSurge',
    'strategy.canary.maxUnavailable',
    'strategy.blueGreen.autoPromotionEnabled',
    'strategy.blueGreen.scaleDownDelaySeconds',
    'strategy.blueGreen.previewReplicaCount',
    'rollbackOnFailure',
    'minReadySeconds',
    'progressDeadlineSeconds',
    'revisionHistoryLimit',
    'paused',
  ],
  service: ['service.type', 'service.port', 'service.nodePort'],
  tls: [...templatePaths('tls'), 'ingress.host', 'ingress.className', 'ingress.tls'],
  placement: templatePaths('placement'),
  budget: ['disruptionBudget.minAvailable', 'disruptionBudget.maxUnavailable'],
  container: templatePaths('container'),
  config: templatePaths('config'),
} as const satisfies Record<string, readonly string[]>;

export type SectionName = keyof typeof SECTIONS;

/** Every spec path the form has an input for. */
export const SPEC_PATHS: readonly string[] = Object.values(SECTIONS).flat();

/** The shared schema of the spec field at `path` (`service.port`); throws for a path the schema lacks. */
export function schemaAt(path: string): JsonSchema {
  let schema: JsonSchema | undefined = nginxSpecSchema;
  for (const key of path.split('.')) schema = schema?.properties?.[key];
  if (!schema) throw new Error(`spec.${path} is not in the Nginx schema`);
  return schema;
}

/** An input's id for a field path (`spec.service.port` → `spec-service-port`). */
export const idFor = (field: string) => field.replace(/\./g, '-');

const NODE_PORT_TYPES = new Set(['NodePort', 'LoadBalancer']);

/**
 * Whether the field at `path` is part of what the form sends given the other values: the Service's fields only
 * with the Service on (nodePort only for NodePort and LoadBalancer), the rolling bounds only with RollingUpdate
 * (the default), the canary's and the blue-green's fields only with their strategy, and only the budget bound
 * chosen. The form shows exactly these fields.
 */
export function isIncluded(path: string, values: CreateFormValues): boolean {
  if (path.startsWith('service.'))
    return (
      values.serviceEnabled &&
      (path !== 'service.nodePort' || NODE_PORT_TYPES.has(values.spec['service.type'] ?? ''))
    );
  if (path.startsWith('strategy.rollingUpdate.'))
    return !['Recreate', 'Canary', 'BlueGreen'].includes(values.spec['strategy.type'] ?? '');
  if (path.startsWith('strategy.canary.')) return values.spec['strategy.type'] === 'Canary';
  if (path.startsWith('strategy.blueGreen.')) return values.spec['strategy.type'] === 'BlueGreen';
  // The Ingress routes to the owned Service, so the schema's rules refuse one without it.
  if (path.startsWith('ingress.')) return values.serviceEnabled;
  if (path.startsWith('disruptionBudget.')) return path === `disruptionBudget.${values.budget}`;
  return true;
}

const isIntOrString = (schema: JsonSchema) => schema['x-kubernetes-int-or-string'] === true;

/**
 * A field's text as the schema's type, or undefined when not given ('' or an unchecked box). Numbers that are
 * not numbers stay text (the schema check then names them); an int-or-string is an integer when it is digits only.
 */
export function fromInput(schema: JsonSchema, raw: string): unknown {
  if (schema.type === 'boolean') return raw === 'true' ? true : undefined;
  if (raw.trim() === '') return undefined;
  if (isIntOrString(schema)) return /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : raw.trim();
  if (schema.type === 'integer' || schema.type === 'number') {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  return raw;
}

/**
 * Booleans the API takes as true when absent: their box starts checked, and only an unchecked one is sent
 * (as false), so the manifest leaves the default to the server as for every other field.
 */
const CHECKED_BY_DEFAULT: ReadonlySet<string> = new Set(['strategy.blueGreen.autoPromotionEnabled']);

/** The spec value of the field at `path` from its text, or undefined when not given. */
function specValueOf(path: string, raw: string): unknown {
  if (LINE_FIELDS[path]) return LINE_FIELDS[path].parse(raw);
  if (CHECKED_BY_DEFAULT.has(path)) return raw === 'true' ? undefined : false;
  return fromInput(schemaAt(path), raw);
}

/** The text of the field at `path` for its spec value; the inverse of specValueOf. */
function inputOf(path: string, value: unknown): string {
  if (LINE_FIELDS[path]) return LINE_FIELDS[path].format(value);
  if (CHECKED_BY_DEFAULT.has(path)) return value === false ? '' : 'true';
  return toInput(value);
}

/** A spec value as the form's text ('' for absent); the inverse of fromInput for what the form can hold. */
export function toInput(value: unknown): string {
  if (value === undefined || value === null || value === false) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

const valueAt = (object: unknown, path: string): unknown =>
  path
    .split('.')
    .reduce<unknown>(
      (node, key) =>
        typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined,
      object,
    );

function setAt(object: Record<string, unknown>, path: string, value: unknown) {
  const keys = path.split('.');
  let node = object;
  for (const key of keys.slice(0, -1)) node = (node[key] ??= {}) as Record<string, unknown>;
  node[keys.at(-1)!] = value;
}

/**
 * The manifest the form describes, without the namespace (it goes in the URL). Optional fields left empty are
 * omitted; a Service or budget switched on is sent even when empty (`service: {}` asks for the defaults).
 */
export function manifestOf(values: CreateFormValues) {
  const spec: Record<string, unknown> = {};
  if (values.serviceEnabled) spec.service = {};
  if (values.budget) spec.disruptionBudget = {};
  for (const path of SPEC_PATHS) {
    if (!isIncluded(path, values)) continue;
    const value = specValueOf(path, values.spec[path] ?? '');
    if (value !== undefined) setAt(spec, path, value);
  }
  return { apiVersion: NGINX_API_VERSION, kind: NGINX_KIND, metadata: { name: values.name }, spec };
}

/** The form's values for a new Nginx in `namespace`: one replica, everything else left to the defaults. */
export function initialValues(namespace: string): CreateFormValues {
  return {
    name: '',
    namespace,
    spec: Object.fromEntries(
      SPEC_PATHS.map((path) => [path, path === 'replicas' ? '1' : inputOf(path, undefined)]),
    ),
    serviceEnabled: false,
    budget: '',
  };
}

/**
 * The form's values read from a manifest (the YAML mode's), keeping `previous` name and namespace where the
 * manifest has none. Spec fields the form has no input for are not carried; `dropped` names them.
 */
export function valuesFromManifest(
  manifest: unknown,
  previous: CreateFormValues,
): { values: CreateFormValues; dropped: string[] } {
  const metadata = valueAt(manifest, 'metadata') as { name?: unknown; namespace?: unknown } | undefined;
  const spec = valueAt(manifest, 'spec');
  const budget = valueAt(spec, 'disruptionBudget');
  const values: CreateFormValues = {
    name: typeof metadata?.name === 'string' ? metadata.name : previous.name,
    namespace: typeof metadata?.namespace === 'string' ? metadata.namespace : previous.namespace,
    spec: Object.fromEntries(SPEC_PATHS.map((path) => [path, inputOf(path, valueAt(spec, path))])),
    serviceEnabled: typeof valueAt(spec, 'service') === 'object' && valueAt(spec, 'service') !== null,
    budget:
      valueAt(budget, 'minAvailable') !== undefined
        ? 'minAvailable'
        : valueAt(budget, 'maxUnavailable') !== undefined
          ? 'maxUnavailable'
          : typeof budget === 'object' && budget !== null
            ? 'minAvailable'
            : '',
  };
  const edited = (path: string) =>
    SPEC_PATHS.some((p) => path === p || (LINE_FIELDS[p] && path.startsWith(`${p}.`)));
  return { values, dropped: leaves(spec, '').filter((path) => !edited(path)) };
}

/** The paths of every non-object value under `node`. */
function leaves(node: unknown, prefix: string): string[] {
  if (typeof node !== 'object' || node === null || Array.isArray(node)) return prefix ? [prefix] : [];
  const entries = Object.entries(node as Record<string, unknown>);
  if (entries.length === 0) return [];
  return entries.flatMap(([key, child]) => leaves(child, prefix ? `${prefix}.${key}` : key));
}

/** The input a schema field gets. */
export type SchemaFieldKind =
  'number' | 'text' | 'int-or-percent' | 'quantity' | 'enum' | 'boolean' | 'multiline';

/** Which input suits `schema`: its type, enum, and `x-kubernetes-int-or-string` (a quantity unless it takes a `%`). */
export function fieldKind(schema: JsonSchema, multiline = false): SchemaFieldKind {
  if (multiline) return 'multiline';
  if (isIntOrString(schema)) return schema.pattern?.includes('%') ? 'int-or-percent' : 'quantity';
  if (schema.enum) return 'enum';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'integer' || schema.type === 'number') return 'number';
  return 'text';
}

/** Labels where the key alone would be ambiguous on one page (three ports, two maxUnavailable). */
const LABELS: Record<string, string> = {
  'strategy.type': 'Strategy',
  'strategy.rollingUpdate.maxSurge': 'Max surge',
  'strategy.rollingUpdate.maxUnavailable': 'Max unavailable',
  'service.type': 'Service type',
  'service.port': 'Service port',
  'service.nodePort': 'Node port',
  'strategy.canary.steps': 'Canary steps',
  'strategy.canary.maxSurge': 'Max surge in a step',
  'strategy.canary.maxUnavailable': 'Max unavailable in a step',
  'strategy.blueGreen.autoPromotionEnabled': 'Promote automatically',
  'strategy.blueGreen.scaleDownDelaySeconds': 'Scale-down delay seconds',
  'strategy.blueGreen.previewReplicaCount': 'Preview replicas',
  'tls.secretName': 'TLS Secret',
  'ingress.host': 'Ingress host',
  'ingress.className': 'Ingress class',
  'ingress.tls': 'Ingress terminates TLS',
  nodeSelector: 'Node selector',
  priorityClassName: 'Priority class',
  'disruptionBudget.minAvailable': 'Minimum available',
  'disruptionBudget.maxUnavailable': 'Maximum unavailable',
  port: 'Container port',
  healthCheckPath: 'Health check path',
  'resources.requests.cpu': 'CPU request',
  'resources.requests.memory': 'Memory request',
  'resources.limits.cpu': 'CPU limit',
  'resources.limits.memory': 'Memory limit',
};

/** A field's label: its own where set, else its key in words (`minReadySeconds` → `Min ready seconds`). */
export function fieldLabel(path: string): string {
  const key = path.split('.').at(-1)!;
  return (
    LABELS[path] ??
    key
      .replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`)
      .replace(/^./, (c) => c.toUpperCase())
  );
}

/** Whether the schema requires the field at `path`: in its parent object, and each object on the way in its own (only spec.replicas today). */
export function isRequiredPath(path: string): boolean {
  // Required only when every object on the way is: spec.tls.secretName is required only once spec.tls is set.
  const keys = path.split('.');
  return keys.every((key, i) => {
    const parent = i > 0 ? schemaAt(keys.slice(0, i).join('.')) : nginxSpecSchema;
    return parent.required?.includes(key) ?? false;
  });
}
