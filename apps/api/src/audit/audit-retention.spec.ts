import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditRetention } from './audit-retention.js';

const DAY = 24 * 3_600_000;

describe('AuditRetention', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('prunes what is older than the maximum age shortly after start, then every interval, until stopped', async () => {
    const cutoffs: Date[] = [];
    const pruned = vi.fn();
    const retention = new AuditRetention({
      prune: async (before) => {
        cutoffs.push(before);
        return { records: 2, changes: 1, noops: 0, entries: 0, refusals: 0 };
      },
      maxAgeMs: 30 * DAY,
      intervalMs: 3_600_000,
      now: () => 100 * DAY,
      pruned,
    });
    retention.start(10_000);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(cutoffs).toEqual([new Date(70 * DAY)]);
    await vi.advanceTimersByTimeAsync(2 * 3_600_000);
    expect(cutoffs).toHaveLength(3);
    expect(pruned).toHaveBeenCalledWith(3); // reconcile and change records
    await retention.stop();
    await vi.advanceTimersByTimeAsync(10 * 3_600_000);
    expect(cutoffs).toHaveLength(3);
  });

  it('logs a failed pass and tries again at the next interval', async () => {
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const prune = vi
      .fn()
      .mockRejectedValueOnce(new Error('database is locked'))
      .mockResolvedValue({ records: 0, changes: 0, noops: 0, entries: 0 });
    const retention = new AuditRetention({ prune, maxAgeMs: DAY, intervalMs: 1_000, logger });
    retention.start(0);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(logger.warn).toHaveBeenCalledWith('could not prune the audit trail', {
      error: 'database is locked',
    });
    expect(prune).toHaveBeenCalledTimes(2);
    await retention.stop();
  });
});
