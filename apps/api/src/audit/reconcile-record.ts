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
