/**
 * What a workqueue reports as it runs. Gauges that depend on time passing (unfinished work, longest running
 * processor) are read from the queue on demand instead, see `WorkQueue.unfinishedWorkSeconds`.
 */
export interface WorkQueueMetrics {
  /** An item entered the queue (adds_total). */
  added(): void;
  /** Items waiting now (depth). */
  depth(items: number): void;
  /** Seconds an item waited between being added and handed to a worker (queue_duration_seconds). */
  queueLatency(seconds: number): void;
  /** Seconds a worker held an item, from get to done (work_duration_seconds). */
  workDuration(seconds: number): void;
  /** An item was added after a delay, through the rate limiter or `addAfter` (retries_total, as client-go counts). */
  retried(): void;
}

export const noWorkQueueMetrics: WorkQueueMetrics = {
  added() {},
  depth() {},
  queueLatency() {},
  workDuration() {},
  retried() {},
};
