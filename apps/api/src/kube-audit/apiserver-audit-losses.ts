import type { AuditGap } from '../audit/audit-gap.js';

/**
 * kube-apiserver's own count of audit events it failed to deliver: `apiserver_audit_error_total`, labelled by the
 * audit plugin. For the webhook backend in batch mode, `webhook` counts events whose batch failed after every
 * retry and `buffered` those that did not fit its buffer. Read from its /metrics text (one counter family; a
 * parser of the whole exposition format would be a dependency for two lines).
 */
const LOSS_PLUGINS = new Set(['webhook', 'buffered']);
/** Every sample line of the counter: kube-apiserver's /metrics runs to megabytes, so its lines are not split. */
const ERROR_LINES = /^apiserver_audit_error_total\{([^}]*)\}\s+([0-9.eE+-]+)/gm;

/** Events kube-apiserver failed to deliver to the audit webhook since it started (0 when the counter is absent). */
export function webhookAuditLosses(metricsText: string): number {
  let total = 0;
  for (const [, labels, value] of metricsText.matchAll(ERROR_LINES)) {
    const plugin = /(?:^|,)plugin="([^"]*)"/.exec(labels!)?.[1] ?? '';
    if (LOSS_PLUGINS.has(plugin.replace(/<.*$/, ''))) total += Number(value);
  }
  return total;
}

/**
 * Turns readings of that counter into gaps: the first reading is where this process starts counting (what was
 * lost before cannot be placed in time); a reading above the last is a loss between the two readings; one below
 * it means kube-apiserver restarted and its counter began again, so all of it is new.
 */
export class AuditLossCounter {
  private last?: { total: number; at: Date };

  observe(total: number, at: Date): AuditGap | undefined {
    const last = this.last;
    this.last = { total, at };
    if (!last) return undefined;
    const lost = total >= last.total ? total - last.total : total;
    if (lost <= 0) return undefined;
    return {
      what: 'audit-events-lost',
      from: last.at,
      until: at,
      count: lost,
      detail: "kube-apiserver's audit webhook (its apiserver_audit_error_total)",
    };
  }
}
