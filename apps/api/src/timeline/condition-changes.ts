import type { Nginx } from '@ngx/nginx-api';
import type { TimelineEntryRow } from '../audit/timeline-entry.js';

/**
 * The conditions of an Nginx whose status moved between two states the informer saw (a condition new to
 * `current` counts as moved), each a timeline entry `Type=Status` with its reason and message, at its
 * lastTransitionTime (else when seen). Stored once per condition and transition time. Pure.
 */
export function conditionChanges(
  previous: Nginx | undefined,
  current: Nginx,
  seenAt: Date,
): TimelineEntryRow[] {
  const { namespace, name, uid } = current.metadata ?? {};
  if (!namespace || !name) return [];
  const before = new Map(
    (previous?.status?.conditions ?? []).map((condition) => [condition.type, condition]),
  );
  const entries: TimelineEntryRow[] = [];
  for (const condition of current.status?.conditions ?? []) {
    if (before.get(condition.type)?.status === condition.status) continue;
    const transition = condition.lastTransitionTime ? new Date(condition.lastTransitionTime) : undefined;
    const at = transition && !Number.isNaN(transition.getTime()) ? transition : seenAt;
    entries.push({
      at,
      namespace,
      nginx: name,
      nginxUid: uid ?? null,
      kind: 'condition',
      what: `${condition.type}=${condition.status}`,
      reason: condition.reason ?? null,
      message: condition.message ?? null,
      dedupeKey: `condition:${uid ?? name}:${condition.type}=${condition.status}@${at.toISOString()}`,
    });
  }
  return entries;
}
