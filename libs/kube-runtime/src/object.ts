import type { V1ObjectMeta } from '@kubernetes/client-node';

/** The least a Kubernetes object carries: what the runtime reads from every kind. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: V1ObjectMeta;
}

/** `namespace/name` for namespaced objects, `name` for cluster-scoped ones (client-go's MetaNamespaceKeyFunc). */
export function objectKey(object: KubeObject): string {
  const name = object.metadata?.name;
  if (!name) throw new Error(`object has no metadata.name (kind ${object.kind ?? 'unknown'})`);
  const namespace = object.metadata?.namespace;
  return namespace ? `${namespace}/${name}` : name;
}

/** Splits a key made by `objectKey`; `namespace` is '' for cluster-scoped keys. */
export function splitObjectKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Freezes an object and everything inside it, so no holder can change what others see. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const inner of Object.values(value as object)) deepFreeze(inner);
  return Object.freeze(value);
}

/** A transform that drops `metadata.managedFields`, usually the largest part of an object and unused by controllers. */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  if (object.metadata?.managedFields) delete object.metadata.managedFields;
  return object;
}
