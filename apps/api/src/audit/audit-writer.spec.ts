import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditRefusedError, AuditWriter, type AuditBatch, type AuditSink } from './audit-writer.js';
import type { ChangeRecordRow } from './change-record.js';
import type { NoopCount, ReconcileRecordRow } from './reconcile-record.js';
import type { TimelineEntryRow } from './timeline-entry.js';

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

const change = (name: string, verb: ChangeRecordRow['verb'] = 'patch'): ChangeRecordRow => ({
  at: new Date(0),
  actor: 'alice',
  role: 'editor',
  verb,
  namespace: 'default',
  name,
  subresource: null,
  patchType: verb === 'patch' ? 'application/merge-patch+json' : null,
  specBefore: '{"replicas":1}',
  specAfter: '{"replicas":2}',
  code: 200,
  reason: null,
  message: null,
  uid: 'u',
  resourceVersion: '2',
  userAgent: 'curl/8',
});

/**
 * A sink that stores batches, fails while `down` is set, and refuses (as a database refuses a value, the whole
 * transaction) any batch holding a row or no-op count named in `refuses`.
 */
function scriptedSink() {
  const stored: { rows: string[]; changes?: string[]; noops: NoopCount[] }[] = [];
  const entries: TimelineEntryRow[] = [];
  const sink = {
    down: false,
    refuses: new Set<string>(),
    stored,
    rows: () => stored.flatMap((batch) => batch.rows),
    changes: () => stored.flatMap((batch) => batch.changes ?? []),
    entries,
    write: vi.fn(async ({ rows, changes, entries: kept = [], noops }: AuditBatch) => {
      if (sink.down) throw new Error('connect ECONNREFUSED');
      if ([...rows, ...changes, ...noops].some((row) => sink.refuses.has(row.name)))
        throw new AuditRefusedError('23514 new row violates check constraint "refuse"');
      entries.push(...kept);
      stored.push({
        rows: rows.map((r) => r.name),
        ...(changes.length > 0 ? { changes: changes.map((c) => c.name) } : {}),
        noops: structuredClone(noops),
      });
    }),
  };
  return sink satisfies AuditSink & Record<string, unknown>;
}

function metrics() {
  return { depth: vi.fn(), written: vi.fn(), dropped: vi.fn(), rejected: vi.fn(), failed: vi.fn() };
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

  it('lets timeline entries wait entryFlushIntervalMs for a batch, unless a record is queued or a batch is full', async () => {
    const sink = scriptedSink();
    const entry = (pod: string): TimelineEntryRow => ({
      at: new Date(0),
      namespace: 'default',
      nginx: 'web',
      kind: 'pod',
      what: 'created',
      pod,
    });
    const writer = new AuditWriter({ sink, flushIntervalMs: 100, entryFlushIntervalMs: 1_000, maxBatch: 3 });
    writer.entry(entry('p1'));
    writer.entry(entry('p2'));
    await vi.advanceTimersByTimeAsync(999);
    expect(sink.write).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(sink.entries.map((e) => e.pod)).toEqual(['p1', 'p2']);

    writer.entry(entry('p3'));
    writer.record(row('a')); // a record brings the batch forward, entries included
    await vi.advanceTimersByTimeAsync(100);
    expect(sink.entries.map((e) => e.pod)).toEqual(['p1', 'p2', 'p3']);
    expect(sink.rows()).toEqual(['a']);

    writer.entry(entry('p4'));
    await vi.advanceTimersByTimeAsync(500); // the record is gone: entries wait again
    expect(sink.entries).toHaveLength(3);
    writer.entry(entry('p5'));
    writer.entry(entry('p6')); // a full batch goes within the flush interval
    await vi.advanceTimersByTimeAsync(100);
    expect(sink.entries.map((e) => e.pod)).toEqual(['p1', 'p2', 'p3', 'p4', 'p5', 'p6']);
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

  it('writes no-op counts at most once per noopFlushIntervalMs while rows keep flowing, and all of them at close', async () => {
    const sink = scriptedSink();
    const writer = new AuditWriter({ sink, flushIntervalMs: 100, noopFlushIntervalMs: 1_000 });
    writer.noop('default', 'web', new Date(1));
    await vi.advanceTimersByTimeAsync(100); // the first after a quiet spell: within the flush interval
    expect(sink.stored.map((b) => b.noops.length)).toEqual([1]);
    for (let i = 0; i < 15; i++) {
      writer.record(row(`r${i}`));
      writer.noop('default', 'web', new Date(2 + i));
      await vi.advanceTimersByTimeAsync(100);
    }
    const noopBatches = sink.stored.filter((b) => b.noops.length > 0);
    expect(sink.stored.flatMap((b) => b.rows)).toHaveLength(15); // rows on their own cadence
    expect(noopBatches).toHaveLength(2); // at 0 and 1 s, not once per batch
    expect(noopBatches[1]!.noops[0]!.count).toBe(10);
    writer.noop('default', 'web', new Date(99));
    await writer.close();
    const counted = sink.stored.flatMap((b) => b.noops).reduce((sum, n) => sum + n.count, 0);
    expect(counted).toBe(17);
  });

  it('does not hold a row behind a later no-op flush', async () => {
    const sink = scriptedSink();
    const writer = new AuditWriter({ sink, flushIntervalMs: 100, noopFlushIntervalMs: 1_000 });
    writer.noop('default', 'web', new Date(1));
    await vi.advanceTimersByTimeAsync(100);
    writer.noop('default', 'web', new Date(2)); // due 1 s after the last no-op write
    writer.record(row('a'));
    await vi.advanceTimersByTimeAsync(100);
    expect(sink.stored.at(-1)).toEqual({ rows: ['a'], noops: [] });
    await vi.advanceTimersByTimeAsync(799);
    expect(sink.stored).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(101);
    expect(sink.stored.at(-1)!.noops).toEqual([
      { namespace: 'default', name: 'web', count: 1, lastAt: new Date(2) },
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
      'audit queue full: dropping audit records until the database catches up',
      { limit: 3 },
    );
    sink.down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sink.rows()).toEqual(['a', 'b', 'c']);
    expect(logger.info).toHaveBeenCalledWith(
      'audit writer caught up: writing queued records',
      expect.objectContaining({ droppedWhileUnavailable: 2 }),
    );
    // What was lost is itself recorded, per Nginx, past the limit: a gap in each one's timeline.
    expect(sink.entries).toEqual([
      expect.objectContaining({
        kind: 'gap',
        what: 'audit-queue-overflow',
        namespace: 'default',
        nginx: 'd',
        count: 1,
      }),
      expect.objectContaining({
        kind: 'gap',
        what: 'audit-queue-overflow',
        namespace: 'default',
        nginx: 'e',
        count: 1,
      }),
    ]);
    expect(sink.entries[0]!.message).toMatch(
      /^1 audit records dropped: the audit queue was full \(1970-01-01T00:00:00\.000Z – /,
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

  it('writes change records in the same transaction as reconcile records and no-op counts', async () => {
    const sink = scriptedSink();
    const counters = metrics();
    const writer = new AuditWriter({ sink, metrics: counters });
    writer.record(row('a'));
    writer.change(change('web', 'create'));
    writer.noop('default', 'quiet', new Date(7));
    writer.change(change('web', 'patch'));
    expect(writer.queued).toBe(3);
    expect(counters.depth).toHaveBeenLastCalledWith(3);
    expect(sink.write).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    expect(sink.write).toHaveBeenCalledTimes(1);
    expect(sink.write.mock.calls[0]![0].changes.map((c) => c.verb)).toEqual(['create', 'patch']);
    expect(sink.stored).toEqual([
      {
        rows: ['a'],
        changes: ['web', 'web'],
        noops: [{ namespace: 'default', name: 'quiet', count: 1, lastAt: new Date(7) }],
      },
    ]);
    expect(counters.written).toHaveBeenCalledWith(3);
  });

  it('counts both kinds against one bound and batch size, keeping their order across batches', async () => {
    const sink = scriptedSink();
    const counters = metrics();
    const writer = new AuditWriter({ sink, limit: 4, maxBatch: 2, metrics: counters });
    sink.down = true;
    writer.record(row('r1'));
    writer.change(change('c1'));
    writer.record(row('r2'));
    writer.change(change('c2'));
    writer.change(change('c3')); // beyond the bound
    writer.record(row('r3')); // beyond the bound
    expect(writer.queued).toBe(4);
    expect(counters.dropped).toHaveBeenCalledTimes(2);
    sink.down = false;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sink.stored.map(({ rows, changes }) => ({ rows, changes }))).toEqual([
      { rows: ['r1'], changes: ['c1'] },
      { rows: ['r2'], changes: ['c2'] },
      { rows: [], changes: undefined }, // the gap entries of c3 and r3
    ]);
    expect(sink.entries.map((entry) => entry.nginx)).toEqual(['c3', 'r3']);
  });

  it('retries a failed batch of change records without losing or duplicating any', async () => {
    const sink = scriptedSink();
    const writer = new AuditWriter({ sink });
    sink.down = true;
    writer.change(change('a'));
    await vi.advanceTimersByTimeAsync(100 + 200);
    expect(sink.write).toHaveBeenCalledTimes(2);
    writer.change(change('b'));
    sink.down = false;
    await vi.advanceTimersByTimeAsync(400);
    expect(sink.changes()).toEqual(['a', 'b']);
    expect(writer.queued).toBe(0);
  });

  it('flushes queued change records on close, and counts them as lost when the database refuses', async () => {
    const sink = scriptedSink();
    const writer = new AuditWriter({ sink, maxBatch: 2 });
    for (const name of ['a', 'b', 'c']) writer.change(change(name));
    await writer.close();
    expect(sink.changes()).toEqual(['a', 'b', 'c']);

    const failing = scriptedSink();
    failing.down = true;
    const counters = metrics();
    const closing = new AuditWriter({ sink: failing, metrics: counters });
    closing.record(row('x'));
    closing.change(change('y'));
    await closing.close();
    expect(counters.dropped).toHaveBeenCalledWith(2);
  });

  describe('a row the database refuses', () => {
    const logger = () => ({ info: vi.fn(), warn: vi.fn(), error: vi.fn() });

    it('is dropped, counted and logged once without its content; the rest of its batch is written, in order', async () => {
      const sink = scriptedSink();
      sink.refuses.add('bad');
      const counters = metrics();
      const log = logger();
      const writer = new AuditWriter({ sink, metrics: counters, logger: log });
      writer.record(row('a'));
      writer.change({ ...change('bad'), specAfter: '{"secret":"content"}' });
      writer.change(change('c'));
      writer.noop('default', 'quiet', new Date(7));
      await vi.advanceTimersByTimeAsync(100);

      expect(sink.rows()).toEqual(['a']);
      expect(sink.changes()).toEqual(['c']);
      expect(sink.stored.flatMap((batch) => batch.noops)).toEqual([
        { namespace: 'default', name: 'quiet', count: 1, lastAt: new Date(7) },
      ]);
      expect(writer.queued).toBe(0);
      expect(counters.rejected).toHaveBeenCalledTimes(1);
      expect(counters.rejected).toHaveBeenCalledWith(1);
      expect(counters.written.mock.calls.flat().reduce((sum: number, n: number) => sum + n, 0)).toBe(2);
      expect(counters.dropped).not.toHaveBeenCalled();
      expect(counters.depth).toHaveBeenLastCalledWith(0);
      expect(log.error).toHaveBeenCalledTimes(1);
      expect(log.error).toHaveBeenCalledWith('audit record refused by the database: dropped', {
        kind: 'change',
        namespace: 'default',
        name: 'bad',
        at: new Date(0),
        reason: '23514 new row violates check constraint "refuse"',
      });
      expect(JSON.stringify(log.error.mock.calls)).not.toContain('secret');
    });

    it('is never tried again: later rows keep flowing in whole batches', async () => {
      const sink = scriptedSink();
      sink.refuses.add('bad');
      const counters = metrics();
      const writer = new AuditWriter({ sink, metrics: counters, maxBatch: 3 });
      for (const name of ['a', 'bad', 'b', 'c', 'd']) writer.change(change(name));
      await vi.advanceTimersByTimeAsync(100);
      writer.record(row('later'));
      await vi.advanceTimersByTimeAsync(1_000);

      expect(sink.changes()).toEqual(['a', 'b', 'c', 'd']);
      expect(sink.rows()).toEqual(['later']);
      const attemptsWithBad = sink.write.mock.calls.filter(([batch]) =>
        batch.changes.some((c) => c.name === 'bad'),
      );
      expect(attemptsWithBad).toHaveLength(2); // in its batch, then alone
      expect(counters.rejected).toHaveBeenCalledTimes(1);
      // The refused batch went row by row; the next batch is one transaction again.
      expect(sink.stored.map(({ changes, rows }) => [...(changes ?? []), ...rows])).toEqual([
        ['a'],
        ['b'],
        ['c', 'd', 'later'],
      ]);
      expect(writer.queued).toBe(0);
    });

    it('drops only the rows refused when several are, and a refused no-op count alone', async () => {
      const sink = scriptedSink();
      for (const name of ['bad-1', 'bad-2', 'bad-noop']) sink.refuses.add(name);
      const counters = metrics();
      const log = logger();
      const writer = new AuditWriter({ sink, metrics: counters, logger: log });
      writer.record(row('bad-1'));
      writer.record(row('a'));
      writer.change(change('bad-2'));
      writer.noop('default', 'bad-noop', new Date(1));
      writer.noop('default', 'quiet', new Date(2));
      await vi.advanceTimersByTimeAsync(100);

      expect(sink.rows()).toEqual(['a']);
      expect(sink.changes()).toEqual([]);
      expect(sink.stored.flatMap((batch) => batch.noops).map((noop) => noop.name)).toEqual(['quiet']);
      expect(counters.rejected).toHaveBeenCalledTimes(3);
      expect(log.error.mock.calls.map(([, fields]) => [fields.kind, fields.name])).toEqual([
        ['reconcile', 'bad-1'],
        ['change', 'bad-2'],
        ['noop', 'bad-noop'],
      ]);
    });

    it('keeps what is not yet written queued when the database goes away midway, and finishes later', async () => {
      const sink = scriptedSink();
      sink.refuses.add('bad');
      const counters = metrics();
      const writer = new AuditWriter({ sink, metrics: counters });
      for (const name of ['a', 'bad', 'b', 'c']) writer.change(change(name));
      writer.noop('default', 'quiet', new Date(3));
      const write = sink.write.getMockImplementation()!;
      let calls = 0;
      sink.write.mockImplementation(async (batch) => {
        if (++calls === 4) sink.down = true; // after the batch, then 'a' and 'bad' alone, the database goes
        return write(batch);
      });
      await vi.advanceTimersByTimeAsync(100);
      expect(sink.changes()).toEqual(['a']);
      expect(writer.queued).toBe(2); // b, c
      expect(counters.rejected).toHaveBeenCalledTimes(1);

      sink.down = false;
      await vi.advanceTimersByTimeAsync(1_000);
      expect(sink.changes()).toEqual(['a', 'b', 'c']);
      expect(sink.stored.flatMap((batch) => batch.noops)).toEqual([
        { namespace: 'default', name: 'quiet', count: 1, lastAt: new Date(3) },
      ]);
      expect(counters.rejected).toHaveBeenCalledTimes(1);
      expect(writer.queued).toBe(0);
    });

    it('does not mistake a database that is away for a refusal: everything stays queued', async () => {
      const sink = scriptedSink();
      sink.refuses.add('bad');
      sink.down = true;
      const counters = metrics();
      const writer = new AuditWriter({ sink, metrics: counters, limit: 10 });
      for (const name of ['a', 'bad', 'b']) writer.change(change(name));
      await vi.advanceTimersByTimeAsync(10_000);
      expect(writer.queued).toBe(3);
      expect(counters.rejected).not.toHaveBeenCalled();
      expect(counters.dropped).not.toHaveBeenCalled();
      expect(sink.write.mock.calls.every(([batch]) => batch.changes.length === 3)).toBe(true); // never row by row

      sink.down = false;
      await vi.advanceTimersByTimeAsync(5_000);
      expect(sink.changes()).toEqual(['a', 'b']);
      expect(counters.rejected).toHaveBeenCalledTimes(1);
    });

    it('does not stall close: what is refused is dropped and the rest written', async () => {
      const sink = scriptedSink();
      sink.refuses.add('bad');
      const counters = metrics();
      const writer = new AuditWriter({ sink, metrics: counters, maxBatch: 2 });
      for (const name of ['a', 'bad', 'b']) writer.change(change(name));
      await writer.close();
      expect(sink.changes()).toEqual(['a', 'b']);
      expect(counters.rejected).toHaveBeenCalledTimes(1);
      expect(counters.dropped).not.toHaveBeenCalled();
    });
  });

  describe('text the databases cannot store', () => {
    it('is made storable before it is queued, so the batch carries what will be stored', async () => {
      const sink = scriptedSink();
      const writer = new AuditWriter({ sink });
      writer.change({
        ...change('web\u0000\ud800'),
        message: 'name "web\u0000": invalid',
        userAgent: 'x'.repeat(5_000),
      });
      writer.record({ ...row('r\u0000'), error: 'e\udc00' });
      writer.noop('default\u0000', 'quiet\ud800', new Date(1));
      await vi.advanceTimersByTimeAsync(100);

      const [batch] = sink.write.mock.calls[0]!;
      expect(batch.changes[0]).toMatchObject({
        name: 'web\uFFFD\uFFFD',
        message: 'name "web\uFFFD": invalid',
      });
      expect(Buffer.byteLength(batch.changes[0]!.userAgent!)).toBeLessThanOrEqual(1_024);
      expect(batch.rows[0]).toMatchObject({ name: 'r\uFFFD', error: 'e\uFFFD' });
      expect(batch.noops).toEqual([
        { namespace: 'default\uFFFD', name: 'quiet\uFFFD', count: 1, lastAt: new Date(1) },
      ]);
    });

    it('folds no-op counts under the stored name', async () => {
      const sink = scriptedSink();
      const writer = new AuditWriter({ sink });
      writer.noop('default', 'a\u0000', new Date(1));
      writer.noop('default', 'a\uFFFD', new Date(2));
      await vi.advanceTimersByTimeAsync(100);
      expect(sink.stored[0]!.noops).toEqual([
        { namespace: 'default', name: 'a\uFFFD', count: 2, lastAt: new Date(2) },
      ]);
    });
  });
});
