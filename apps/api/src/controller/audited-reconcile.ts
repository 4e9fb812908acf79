import { errorMessage } from '@ngx/kube-runtime';
import type { ReconcileResult, RuntimeLogger } from '@ngx/kube-runtime';
import type { ReconcileOutcome, ReconcileRecordRow } from '../audit/reconcile-record.js';
import { ReconcileReport } from './reconcile-report.js';

/** What woke a reconcile, as stored in the audit trail. */
export type ReconcileTrigger =
  | 'nginx-added'
  | 'nginx-updated'
  | 'nginx-deleted'
  | 'pod-event'
  | 'quota-changed'
  | 'owned-changed'
  | 'resync'
  | 'retry'
  | 'requeue';

/** Why each key sits in the queue: the first reason noted since its last reconcile started. */
export class ReconcileTriggers {
  private readonly pending = new Map<string, ReconcileTrigger>();

  note(key: string, trigger: ReconcileTrigger): void {
    if (!this.pending.has(key)) this.pending.set(key, trigger);
  }

  take(key: string): ReconcileTrigger | undefined {
    const trigger = this.pending.get(key);
    this.pending.delete(key);
    return trigger;
  }
}

export interface AuditedReconcileDeps {
  /** `trace`: the trace the reconcile runs in, when traced (KubeRequest.trace of its requests). */
  reconcile: (
    key: string,
    report: ReconcileReport,
    signal: AbortSignal,
    trace: unknown,
  ) => Promise<ReconcileResult>;
  triggers: ReconcileTriggers;
  /** 1 for a first try, n for the (n-1)th retry after failures. */
  attempt: (key: string) => number;
  audit: {
    record(row: ReconcileRecordRow): void;
    noop(namespace: string, name: string, at: Date): void;
  };
  logger: RuntimeLogger;
  instanceId: string;
}

/**
 * Wraps a reconcile so each one that acted or failed becomes one audit row and one log line carrying its key,
 * and each one that changed nothing only bumps its key's no-op count. Errors pass through unchanged.
 */
export function auditedReconcile(
  deps: AuditedReconcileDeps,
): (key: string, signal?: AbortSignal, trace?: unknown) => Promise<ReconcileResult> {
  return async (key, signal = new AbortController().signal, trace) => {
    const attempt = deps.attempt(key);
    const trigger = deps.triggers.take(key) ?? (attempt > 1 ? 'retry' : 'resync');
    const report = new ReconcileReport();
    const startedAt = new Date();
    const started = performance.now();
    let outcome: ReconcileOutcome = 'success';
    let error: string | null = null;
    try {
      const result = await deps.reconcile(key, report, signal, trace);
      if (result && ('requeue' in result || result.requeueAfterMs >= 0)) {
        outcome = 'requeued';
        deps.triggers.note(key, 'requeue');
      }
      return result;
    } catch (thrown) {
      outcome = 'error';
      error = errorMessage(thrown);
      throw thrown;
    } finally {
      const [namespace = '', name = key] = key.includes('/') ? key.split('/') : ['', key];
      if (!report.acted && outcome !== 'error') {
        deps.audit.noop(namespace, name, startedAt);
      } else {
        const durationMs = Math.round(performance.now() - started);
        deps.audit.record({
          startedAt,
          finishedAt: new Date(startedAt.getTime() + durationMs),
          durationMs,
          namespace,
          name,
          uid: report.seen?.uid ?? null,
          generation: report.seen?.generation ?? null,
          resourceVersion: report.seen?.resourceVersion ?? null,
          trigger,
          desiredReplicas: report.counts?.desired ?? null,
          activeReplicas: report.counts?.active ?? null,
          readyReplicas: report.counts?.ready ?? null,
          actions: JSON.stringify(report.actions),
          result: outcome,
          error,
          attempt,
          instanceId: deps.instanceId,
        });
        const log = outcome === 'error' ? deps.logger.warn : deps.logger.info;
        log.call(deps.logger, 'reconciled', {
          key,
          trigger,
          attempt,
          result: outcome,
          durationMs,
          actions: summarize(report),
          ...report.counts,
          ...(error ? { error } : {}),
        });
      }
    }
  };
}

/** "create 3, delete 1, status 1": the actions of a reconcile at a glance. */
function summarize(report: ReconcileReport): string {
  const counts = new Map<string, number>();
  for (const action of report.actions) counts.set(action.kind, (counts.get(action.kind) ?? 0) + 1);
  return [...counts].map(([kind, count]) => `${kind} ${count}`).join(', ');
}
