import type { V1Pod } from '@kubernetes/client-node';
import { LABEL_REVISION, type LivePod } from '@ngx/nginx-api';

const time = (value: unknown): string | null =>
  value === undefined || value === null ? null : value instanceof Date ? value.toISOString() : String(value);

/**
 * The row for one pod (one row of an Nginx's live pod table), from its cached object. `now` is when the view is
 * made (for the age).
 */
export function podView(pod: V1Pod, now = Date.now()): LivePod {
  const createdAt = time(pod.metadata?.creationTimestamp);
  return {
    name: pod.metadata?.name ?? '',
    uid: pod.metadata?.uid ?? '',
    phase: pod.status?.phase ?? 'Unknown',
    ready: pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false,
    node: pod.spec?.nodeName ?? null,
    restarts: (pod.status?.containerStatuses ?? []).reduce((sum, c) => sum + (c.restartCount ?? 0), 0),
    podIP: pod.status?.podIP ?? null,
    createdAt,
    ageSeconds: createdAt ? Math.max(0, Math.round((now - Date.parse(createdAt)) / 1000)) : null,
    terminating: Boolean(pod.metadata?.deletionTimestamp),
    deletionTimestamp: time(pod.metadata?.deletionTimestamp),
    resourceVersion: pod.metadata?.resourceVersion ?? '',
    revision: pod.metadata?.labels?.[LABEL_REVISION] ?? null,
  };
}

/** Oldest first, then by name: the order rows keep while pods come and go. */
export function byCreation(a: LivePod, b: LivePod): number {
  return (a.createdAt ?? '').localeCompare(b.createdAt ?? '') || a.name.localeCompare(b.name);
}
