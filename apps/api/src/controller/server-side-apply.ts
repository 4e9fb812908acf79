import type { KubeObject } from '@ngx/kube-runtime';
import { jsonEqual } from '@ngx/nginx-api';

/** The field manager the controller applies the objects it owns as (their managedFields name it). */
export const FIELD_MANAGER = 'nginx-control-plane';
export const APPLY_PATCH = 'application/apply-patch+yaml';

interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  subresource?: string;
  fieldsV1?: object;
}

type FieldSet = Record<string, object>;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const ours = (entry: ManagedFieldsEntry, operation: 'Apply' | 'Update') =>
  entry.manager === FIELD_MANAGER && entry.operation === operation && !entry.subresource;

/** The controller's own Apply entry of an object's managedFields: the fields it manages; undefined when none. */
export function ownApplyEntry(object: KubeObject): ManagedFieldsEntry | undefined {
  return (object.metadata?.managedFields as ManagedFieldsEntry[] | undefined)?.find((entry) =>
    ours(entry, 'Apply'),
  );
}

/**
 * The informer transform of applied objects: drops managedFields (the largest part of an object) except the
 * controller's own entries, the Apply one that says which fields it manages (applyNeeded) and an Update one left
 * by the merge patches of earlier versions (legacyUpdateEntry).
 */
export function keepOwnManagedFields<T extends KubeObject>(object: T): T {
  const entries = object.metadata?.managedFields as ManagedFieldsEntry[] | undefined;
  if (!entries) return object;
  const kept = entries.filter((entry) => ours(entry, 'Apply') || ours(entry, 'Update'));
  if (kept.length > 0) object.metadata!.managedFields = kept as never;
  else delete object.metadata!.managedFields;
  return object;
}

/**
 * The index in managedFields of the Update entry our manager left by creating and merge-patching the object
 * before it applied it (earlier versions), while it has no Apply entry yet: fields owned there would stay when
 * the spec drops them, so the entry becomes our Apply entry once. Undefined when there is none.
 */
export function legacyUpdateEntry(object: KubeObject): number | undefined {
  const entries = (object.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
  if (entries.some((entry) => ours(entry, 'Apply'))) return undefined;
  const index = entries.findIndex((entry) => ours(entry, 'Update'));
  return index < 0 ? undefined : index;
}

/**
 * Whether applying `desired` could change `current`: false only when our Apply entry (same apiVersion) manages
 * exactly the fields `desired` declares (none dropped from the spec since, none another manager took over) and
 * `current` holds the declared value in each. So a steady state costs no write, a field changed by hand or one
 * removed from the spec is applied again, and what other managers added is no reason to write.
 */
export function applyNeeded(current: KubeObject, desired: KubeObject): boolean {
  const entry = ownApplyEntry(current);
  if (!entry?.fieldsV1 || entry.apiVersion !== desired.apiVersion) return true;
  // apiVersion, kind, name and namespace identify the object: managedFields do not list them.
  const { name: _name, namespace: _namespace, ...metadata } = desired.metadata ?? {};
  const {
    apiVersion: _apiVersion,
    kind: _kind,
    metadata: _metadata,
    ...rest
  } = desired as Record<string, unknown>;
  return !managedAsDeclared({ ...rest, metadata }, current, entry.fieldsV1 as FieldSet);
}

/**
 * Whether `fields` (a fieldsV1 set) manages exactly the fields of `declared`, and `current` holds each declared
 * value. An empty set under a map or list is an atomic one: compared whole.
 */
function managedAsDeclared(declared: unknown, current: unknown, fields: FieldSet | undefined): boolean {
  if (fields === undefined) return false;
  const members = Object.keys(fields).filter((key) => key !== '.');
  if (isObject(declared)) {
    if (members.length === 0) return jsonEqual(current, declared);
    const keys = Object.keys(declared).filter((key) => declared[key] !== undefined);
    if (members.some((member) => !member.startsWith('f:') || !keys.includes(member.slice(2)))) return false;
    const have = isObject(current) ? current : {};
    return keys.every((key) => managedAsDeclared(declared[key], have[key], fields[`f:${key}`] as FieldSet));
  }
  if (Array.isArray(declared)) {
    if (members.length === 0) return jsonEqual(current, declared);
    // A list map: one `k:{key fields}` member for each declared element.
    if (members.length !== declared.length || members.some((member) => !member.startsWith('k:')))
      return false;
    const have = Array.isArray(current) ? current : [];
    return members.every((member) => {
      const key = JSON.parse(member.slice(2)) as Record<string, unknown>;
      const matches = (item: unknown) =>
        isObject(item) && Object.entries(key).every(([name, value]) => item[name] === value);
      const element = declared.find(matches);
      return (
        element !== undefined && managedAsDeclared(element, have.find(matches), fields[member] as FieldSet)
      );
    });
  }
  return jsonEqual(current, declared);
}
