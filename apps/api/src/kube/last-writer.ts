import { stripManagedFields, type KubeObject } from '@ngx/kube-runtime';

/** The newest entry of an object's managedFields for its main resource: who wrote it last, and how. */
export interface LastWriter {
  manager: string;
  /** Update or Apply. */
  operation: string;
  time: string | undefined;
}

const lastWriters = new WeakMap<object, LastWriter>();

/**
 * The informer transform of Nginxes: drops managedFields (the largest part of an object, and not served from the
 * cache), keeping aside only its newest entry for the object itself (not a subresource's), which lastWriter
 * answers. So a change seen only by the informer still names the field manager and operation that made it.
 */
export function stripManagedFieldsKeepingLastWriter<T extends KubeObject>(object: T): T {
  let newest: LastWriter | undefined;
  for (const entry of object.metadata?.managedFields ?? []) {
    if (entry.subresource || !entry.manager) continue;
    const time =
      entry.time === undefined ? undefined : new Date(entry.time as unknown as string).toISOString();
    if (!newest || (time ?? '') >= (newest.time ?? ''))
      newest = { manager: entry.manager, operation: entry.operation ?? 'Update', time };
  }
  const stripped = stripManagedFields(object);
  if (newest) lastWriters.set(stripped, newest);
  return stripped;
}

/** The newest managedFields entry the transform kept for `object`; undefined when it had none. */
export function lastWriter(object: object): LastWriter | undefined {
  return lastWriters.get(object);
}
