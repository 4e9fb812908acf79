import type { ReconcileAction, ReconcileItem } from '@ngx/nginx-api';

export type { ReconcileAction };

export type ReconcileOutcome = ReconcileItem['result'];

/**
 * A reconcile that acted or failed: one row of the audit trail (the ReconcileRecord model). The endpoints' item
 * without its id, with times as Dates and the actions as a JSON array of ReconcileAction.
 */
export type ReconcileRecordRow = Omit<ReconcileItem, 'id' | 'startedAt' | 'finishedAt' | 'actions'> & {
  startedAt: Date;
  finishedAt: Date;
  actions: string;
};

/** Reconciles of one Nginx that changed nothing, folded into a count (the ReconcileNoop model). */
export interface NoopCount {
  namespace: string;
  name: string;
  count: number;
  lastAt: Date;
}

/** Adds `noop` to its Nginx's count in `counts` (a count of its own if it has none yet), keeping the latest time. */
export function addNoopCount(counts: Map<string, NoopCount>, noop: NoopCount): void {
  // A namespace never holds a slash, so the key cannot be shared by two Nginxes.
  const key = `${noop.namespace}/${noop.name}`;
  const known = counts.get(key);
  if (!known) counts.set(key, { ...noop });
  else {
    known.count += noop.count;
    if (noop.lastAt > known.lastAt) known.lastAt = noop.lastAt;
  }
}
