import type { V1Pod } from '@kubernetes/client-node';
import type { Nginx } from '@ngx/nginx-api';
import type { RolloutView } from './nginx-status.js';
import type { ReconcileReport } from './reconcile-report.js';

/** What one reconcile of one Nginx works on, handed whole to each of its steps. */
export interface SyncContext {
  /** The Nginx's `namespace/name`, its work queue key. */
  readonly key: string;
  /** A private copy of the cached Nginx. */
  readonly nginx: Nginx;
  /** The pods it owns, adopted orphans included; pods the sync creates are not added. */
  readonly pods: V1Pod[];
  readonly view: RolloutView;
  /** Where the sync notes what it saw and did. */
  readonly report: ReconcileReport;
  /** Aborts when the sync should stop at its next step. */
  readonly signal: AbortSignal;
}
