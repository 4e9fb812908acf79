/** Values a pod template reads as absent: an empty one is no setting at all (see the template rows in schema.ts). */

/** An object with no keys reads as absent: `nodeSelector: {}` and `affinity: {}` are no constraint at all. */
export function nonEmptyObject<T extends object>(value: T | undefined): T | undefined {
  return value && Object.keys(value).length ? value : undefined;
}

/** Resources keep only their non-empty lists, and read as absent without any. */
export function nonEmptyResources<R extends { requests?: object; limits?: object }>(
  resources: R | undefined,
): R | undefined {
  const requests = nonEmptyObject(resources?.requests);
  const limits = nonEmptyObject(resources?.limits);
  if (!requests && !limits) return undefined;
  return { ...(requests ? { requests } : {}), ...(limits ? { limits } : {}) } as R;
}
