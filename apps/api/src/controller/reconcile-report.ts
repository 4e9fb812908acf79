import type { Nginx } from '@ngx/nginx-api';
import type { ReconcileAction } from '../audit/reconcile-record.js';

/**
 * What one reconcile saw and did, filled in by the reconciler as it goes, so the audit trail and the log line
 * describe the reconcile exactly (including the part done before an error).
 */
export class ReconcileReport {
  readonly actions: ReconcileAction[] = [];
  seen: { uid?: string; generation?: number; resourceVersion?: string } | undefined;
  counts: { desired: number; active: number; ready: number } | undefined;

  observe(nginx: Nginx): void {
    const { uid, generation, resourceVersion } = nginx.metadata;
    this.seen = { uid, generation, resourceVersion };
  }

  record(action: ReconcileAction): void {
    this.actions.push(action);
  }

  get acted(): boolean {
    return this.actions.length > 0;
  }
}
