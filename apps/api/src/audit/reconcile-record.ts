import type { ReconcileAction } from '@ngx/nginx-api';

export type { ReconcileAction };

export type ReconcileOutcome = 'success' | 'error' | 'requeued';

/** A reconcile that acted or failed: one row of the audit trail (the ReconcileRecord model). */
export interface ReconcileRecordRow {
  startedAt: Date;
  finishedAt: Date;
  durationMs: number;
  namespace: string;
  name: string;
  uid: string | null;
  generation: number | null;
  resourceVersion: string | null;
  trigger: string;
  desiredReplicas: number | null;
  activeReplicas: number | null;
  readyReplicas: number | null;
  /** JSON array of ReconcileAction. */
  actions: string;
  result: ReconcileOutcome;
  error: string | null;
  attempt: number;
  instanceId: string;
}

/** Reconciles of one Nginx that changed nothing, folded into a count (the ReconcileNoop model). */
export interface NoopCount {
  namespace: string;
  name: string;
  count: number;
  lastAt: Date;
}
