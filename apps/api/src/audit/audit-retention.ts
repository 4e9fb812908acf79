import { silentLogger, type RuntimeLogger, errorMessage } from '@ngx/kube-runtime';
import type { PruneResult } from './prisma-audit-sink.js';

export interface AuditRetentionOptions {
  /** Deletes what is older than the given time; resolves with how many rows of each kind went. */
  prune: (before: Date) => Promise<PruneResult>;
  maxAgeMs: number;
  intervalMs: number;
  now?: () => number;
  logger?: RuntimeLogger;
  /** Called after each pass with the reconcile records, change records and timeline entries it deleted. */
  pruned?: (records: number) => void;
}

/** Prunes the audit trail on a schedule: once shortly after start, then every `intervalMs`. */
export class AuditRetention {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: AuditRetentionOptions) {}

  start(firstDelayMs = 10_000): void {
    this.schedule(firstDelayMs);
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** One pruning pass; failures are logged and retried at the next interval. */
  async pruneNow(): Promise<void> {
    const { prune, maxAgeMs, logger = silentLogger } = this.options;
    const before = new Date((this.options.now ?? Date.now)() - maxAgeMs);
    try {
      const { records, changes, noops, entries, refusals } = await prune(before);
      this.options.pruned?.(records + changes + entries);
      if (records > 0 || changes > 0 || noops > 0 || entries > 0 || refusals > 0)
        logger.info('pruned audit trail', {
          before: before.toISOString(),
          records,
          changes,
          noops,
          entries,
          refusals,
        });
    } catch (error) {
      logger.warn('could not prune the audit trail', {
        error: errorMessage(error),
      });
    }
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => {
      this.running = this.pruneNow().finally(() => {
        this.running = undefined;
        if (this.timer) this.schedule(this.options.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }
}
