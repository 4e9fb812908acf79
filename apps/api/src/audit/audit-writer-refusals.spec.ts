import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AuditRefusedError, AuditWriter, type AuditBatch, type AuditSink } from './audit-writer.js';
import type { RefusalCount, TalliedRefusal } from './refusal-tally.js';

const T0 = Date.parse('2026-11-29T10:00:00Z');

const refusal = (address: string, at = T0): TalliedRefusal => ({
  at: new Date(at),
  door: 'rest',
  code: 401,
  reason: 'bad-token',
  subject: '',
  address,
  message: 'Unauthorized: the token is not known',
});

/** A sink that keeps refusal counts, fails while `down`, and refuses a batch holding an address in `refuses`. */
function refusalSink() {
  const sink = {
    down: false,
    refuses: new Set<string>(),
    stored: [] as RefusalCount[][],
    write: vi.fn(async ({ refusals = [] }: AuditBatch) => {
      if (sink.down) throw new Error('connect ECONNREFUSED');
      if (refusals.some((count) => sink.refuses.has(count.address)))
        throw new AuditRefusedError('22001 value too long');
      if (refusals.length > 0) sink.stored.push(structuredClone(refusals));
    }),
  };
  return sink satisfies AuditSink & Record<string, unknown>;
}

const total = (batches: RefusalCount[][]) => batches.flat().reduce((sum, count) => sum + count.count, 0);

describe('AuditWriter with refused requests', () => {
  beforeEach(() => vi.useFakeTimers({ now: T0 }));
  afterEach(() => vi.useRealTimers());

  it('writes a burst of refusals as one count per key, on the counters’ cadence, without waiting the caller', async () => {
    const sink = refusalSink();
    const writer = new AuditWriter({ sink, flushIntervalMs: 100 });
    for (let i = 0; i < 50; i++) writer.refusal(refusal('10.0.0.1', T0 + i));
    writer.refusal(refusal('10.0.0.2'));
    expect(sink.write).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(100);
    expect(sink.stored).toHaveLength(1);
    expect(sink.stored[0]!.map((count) => [count.address, count.count])).toEqual([
      ['10.0.0.1', 50],
      ['10.0.0.2', 1],
    ]);
  });

  it('keeps the counts while the database is away and writes them once it is back', async () => {
    const sink = refusalSink();
    const dropped = vi.fn();
    const metrics = { depth: vi.fn(), written: vi.fn(), dropped, rejected: vi.fn(), failed: vi.fn() };
    const writer = new AuditWriter({ sink, metrics, maxRetryDelayMs: 400 });
    sink.down = true;
    writer.refusal(refusal('10.0.0.1'));
    await vi.advanceTimersByTimeAsync(100);
    writer.refusal(refusal('10.0.0.1'));
    await vi.advanceTimersByTimeAsync(2_000);
    expect(sink.stored).toEqual([]);
    sink.down = false;
    await vi.advanceTimersByTimeAsync(2_000);
    expect(total(sink.stored)).toBe(2);
    expect(dropped).not.toHaveBeenCalled();
  });

  it('drops and counts what its bound cannot hold during an outage', async () => {
    const sink = refusalSink();
    const dropped = vi.fn();
    const metrics = { depth: vi.fn(), written: vi.fn(), dropped, rejected: vi.fn(), failed: vi.fn() };
    const writer = new AuditWriter({ sink, metrics, refusals: { maxKeysPerWindow: 10, maxHeld: 3 } });
    sink.down = true;
    for (const address of ['a', 'b', 'c', 'd']) writer.refusal(refusal(address));
    expect(dropped).toHaveBeenCalledTimes(1);
    await writer.close();
  });

  it('drops only the count the database refuses, keeping the others of the batch', async () => {
    const sink = refusalSink();
    const rejected = vi.fn();
    const metrics = { depth: vi.fn(), written: vi.fn(), dropped: vi.fn(), rejected, failed: vi.fn() };
    const writer = new AuditWriter({ sink, metrics });
    sink.refuses.add('bad');
    writer.refusal(refusal('good'));
    writer.refusal(refusal('bad'));
    await vi.advanceTimersByTimeAsync(100);
    expect(sink.stored.flat().map((count) => count.address)).toEqual(['good']);
    expect(rejected).toHaveBeenCalledTimes(1);
  });

  it('writes what is held at close', async () => {
    const sink = refusalSink();
    const writer = new AuditWriter({ sink });
    writer.refusal(refusal('10.0.0.1'));
    await writer.close();
    expect(total(sink.stored)).toBe(1);
  });
});
