import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditWriter, type AuditSink } from './audit-writer.js';
import type { NoopCount, ReconcileRecordRow } from './reconcile-record.js';

const row = (name: string): ReconcileRecordRow => ({
  startedAt: new Date(0),
  finishedAt: new Date(5),
  durationMs: 5,
  namespace: 'default',
  name,
  uid: 'u',
  generation: 1,
  resourceVersion: '1',
  trigger: 'nginx-added',
  desiredReplicas: 1,
  activeReplicas: 0,
  readyReplicas: 0,
  actions: '[]',
  result: 'success',
  error: null,
  attempt: 1,
  instanceId: 'test',
});

/** A sink that stores batches, and fails while `down` is set. */
function scriptedSink() {
  const stored: { rows: string[]; noops: NoopCount[] }[] = [];
  const sink = {
    down: false,
    stored,
    rows: () => stored.flatMap((batch) => batch.rows),
    write: vi.fn(async ({ rows, noops }: { rows: ReconcileRecordRow[]; noops: NoopCount[] }) => {
      if (sink.down) throw new Error('connect ECONNREFUSED');
      stored.push({ rows: rows.map((r) => r.name), noops: structuredClone(noops) });
    }),
  };
  return sink satisfies AuditSink & Record<string, unknown>;
}

function metrics() {
  return { depth: vi.fn(), written: vi.fn(), dropped: vi.fn(), failed: vi.fn() };
}

describe('AuditWriter', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('never writes on the caller’s time, and stores queued rows in one batch within the flush interval', async () => {
    const sink = scriptedSink();
    const writer = new AuditWriter({ sink, flushIntervalMs: 100 });
    writer.record(row('a'));
    writer.record(row('b'));
    expect(sink.write).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(99);
    expect(sink.write).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(sink.stored).toEqual([{ rows: ['a', 'b'], noops: [] }]);
    expect(writer.queued).toBe(0);
  });

  it('splits a long queue into batches of at most maxBatch rows, in order', async () => {
    const sink = scriptedSink();
    const writer = new AuditWriter({ sink, maxBatch: 2 });
    for (const name of ['a', 'b', 'c', 'd', 'e']) writer.record(row(name));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sink.stored.map((batch) => batch.rows)).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('folds no-op reconciles into one count per Nginx with the latest time', async () => {
    const sink = scriptedSink();
    const writer = new AuditWriter({ sink });
    writer.noop('default', 'web', new Date(1_000));
    writer.noop('default', 'web', new Date(3_000));
    writer.noop('default', 'web', new Date(2_000));
    writer.noop('team', 'api', new Date(5_000));
    await vi.advanceTimersByTimeAsync(100);
    expect(sink.stored[0]!.noops).toEqual([
      { namespace: 'default', name: 'web', count: 3, lastAt: new Date(3_000) },
      { namespace: 'team', name: 'api', count: 1, lastAt: new Date(5_000) },
    ]);
  });

  it('keeps rows while the database is down, retries with a growing delay, and writes them all when it returns', async () => {
    const sink = scriptedSink();
    const counters = metrics();
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const writer = new AuditWriter({ sink, metrics: counters, logger, maxRetryDelayMs: 800 });
    sink.down = true;
    writer.record(row('a'));
    writer.noop('default', 'web', new Date(1));
    await vi.advanceTimersByTimeAsync(100); // first attempt
    writer.record(row('b'));
    writer.noop('default', 'web', new Date(2));
    await vi.advanceTimersByTimeAsync(100 + 200 + 400 + 800 + 800);
    const attempts = sink.write.mock.calls.length;
    expect(attempts).toBe(6);
    expect(counters.failed).toHaveBeenCalledTimes(6);
    expect(logger.error).toHaveBeenCalledTimes(1); // one line per outage, not per attempt
    expect(writer.queued).toBe(2);

    sink.down = false;
    await vi.advanceTimersByTimeAsync(800);
    expect(sink.stored).toEqual([
      { rows: ['a', 'b'], noops: [{ namespace: 'default', name: 'web', count: 2, lastAt: new Date(2) }] },
    ]);
    expect(counters.written).toHaveBeenCalledWith(2);
    expect(logger.info).toHaveBeenCalledWith(
      'audit writer caught up: writing queued records',
      expect.objectContaining({ droppedWhileUnavailable: 0 }),
    );
  });

  it('drops rows beyond its limit, counting each, and keeps the ones it had', async () => {
    const sink = scriptedSink();
    const counters = metrics();
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const writer = new AuditWriter({ sink, limit: 3, metrics: counters, logger });
    sink.down = true;
    for (const name of ['a', 'b', 'c', 'd', 'e']) writer.record(row(name));
    expect(writer.queued).toBe(3);
    expect(counters.dropped).toHaveBeenCalledTimes(2);
    expect(logger.error).toHaveBeenCalledWith(
      'audit queue full: dropping reconcile records until the database catches up',
      { limit: 3 },
    );
    sink.down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sink.rows()).toEqual(['a', 'b', 'c']);
    expect(logger.info).toHaveBeenCalledWith(
      'audit writer caught up: writing queued records',
      expect.objectContaining({ droppedWhileUnavailable: 2 }),
    );
  });

  it('writes everything left on close, and reports what it could not write', async () => {
    const sink = scriptedSink();
    const writer = new AuditWriter({ sink, maxBatch: 2 });
    for (const name of ['a', 'b', 'c']) writer.record(row(name));
    await writer.close();
    expect(sink.rows()).toEqual(['a', 'b', 'c']);

    const failing = scriptedSink();
    failing.down = true;
    const counters = metrics();
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const closing = new AuditWriter({ sink: failing, metrics: counters, logger });
    closing.record(row('x'));
    await closing.close();
    expect(counters.dropped).toHaveBeenCalledWith(1);
    expect(logger.error).toHaveBeenCalledWith(
      'audit records lost at shutdown: the database did not take them',
      { rows: 1 },
    );
    closing.record(row('late'));
    await vi.advanceTimersByTimeAsync(1_000);
    expect(failing.write).toHaveBeenCalledTimes(1); // closed: no timers after close
  });
});
