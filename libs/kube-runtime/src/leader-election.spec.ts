import type { V1Lease } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { KubeApiError } from './api-error.js';
import type { KubeRequest, KubeRequester } from './client.js';
import { LeaderElector, type LeadershipTerm, type TermEnd } from './leader-election.js';
import { FakeClock } from './testing/fake-clock.js';

const flush = () => new Promise((resolve) => setImmediate(resolve));

/** One Lease in memory with the API server's optimistic concurrency; candidates' requests can be stalled. */
class FakeLeaseApi {
  lease: V1Lease | undefined;
  private version = 0;
  readonly stalled = new Set<string>();
  /** Every answered request: who, what, when (fake clock). */
  readonly log: { who: string; what: string; at: number }[] = [];

  constructor(private readonly clock: FakeClock) {}

  clientFor(who: string): KubeRequester {
    return { request: <T>(req: KubeRequest) => this.handle<T>(who, req) };
  }

  /** Makes `holder` the holder, as another instance's successful update would. */
  setHolder(holder: string, durationSeconds = 15): void {
    this.lease = this.store({
      ...this.lease,
      spec: {
        ...this.lease?.spec,
        holderIdentity: holder,
        leaseDurationSeconds: durationSeconds,
        renewTime: new Date().toISOString() as never,
      },
    });
  }

  /**
   * Stores a record as the server would. Its renewTime, which candidates write from the wall clock, is set from
   * the fake clock instead: renewals a fake 2 s apart may fall in one real millisecond, and a record that looks
   * unchanged would read as a holder that stopped renewing.
   */
  private store(lease: V1Lease): V1Lease {
    const renewTime = new Date(Date.UTC(2026, 0, 1) + this.clock.now()).toISOString();
    return structuredClone({
      ...lease,
      spec: { ...lease.spec, ...(lease.spec?.renewTime && { renewTime: renewTime as never }) },
      metadata: { ...lease.metadata, name: 'lock', namespace: 'ns', resourceVersion: String(++this.version) },
    });
  }

  private async handle<T>(who: string, req: KubeRequest): Promise<T> {
    await Promise.resolve();
    if (this.stalled.has(who))
      return new Promise<T>((_, reject) => {
        req.signal?.throwIfAborted();
        req.signal?.addEventListener('abort', () => reject(req.signal!.reason), { once: true });
      });
    const method = req.method ?? 'GET';
    const notFound = () => new KubeApiError(404, { kind: 'Status', code: 404, reason: 'NotFound' });
    const conflict = () => new KubeApiError(409, { kind: 'Status', code: 409, reason: 'Conflict' });
    let answer: V1Lease;
    if (method === 'GET') {
      if (!this.lease) throw notFound();
      answer = this.lease;
    } else if (method === 'POST') {
      if (this.lease) throw conflict();
      answer = this.lease = this.store(req.body as V1Lease);
    } else {
      const body = req.body as V1Lease;
      if (!this.lease || body.metadata?.resourceVersion !== this.lease.metadata?.resourceVersion)
        throw conflict();
      answer = this.lease = this.store(body);
    }
    this.log.push({ who, what: `${method} ${answer.spec?.holderIdentity ?? ''}`, at: this.clock.now() });
    return structuredClone(answer) as T;
  }
}

/** Moves the fake clock in small steps, letting every promise chain run between them. */
async function elapse(clock: FakeClock, ms: number, step = 10): Promise<void> {
  for (let t = 0; t < ms; t += step) {
    clock.advance(step);
    await flush();
  }
}

const TIMINGS = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

function candidate(
  api: FakeLeaseApi,
  clock: FakeClock,
  identity: string,
  extra: Partial<ConstructorParameters<typeof LeaderElector>[0]> = {},
) {
  const terms: { started: number; ended?: number; settled?: number; why?: TermEnd; term?: LeadershipTerm }[] =
    [];
  const stop = new AbortController();
  const elector = new LeaderElector({
    client: api.clientFor(identity),
    namespace: 'ns',
    name: 'lock',
    identity,
    clock,
    ...TIMINGS,
    // Works until the term ends, as a controller does.
    onStartedLeading: (term: LeadershipTerm) => {
      const record: (typeof terms)[number] = { started: clock.now(), term };
      terms.push(record);
      return new Promise<void>((resolve) =>
        term.signal.addEventListener('abort', () => ((record.ended = clock.now()), resolve()), {
          once: true,
        }),
      );
    },
    onStoppedLeading: (why) => {
      const last = terms.at(-1);
      if (last) last.why = why;
    },
    ...extra,
  });
  const running = elector.run(stop.signal);
  return { elector, terms, stop: async () => (stop.abort(), await running), running };
}

describe('LeaderElector', () => {
  it('awaits the term’s work after the term ends, and only then releases the Lease', async () => {
    const clock = new FakeClock();
    const api = new FakeLeaseApi(clock);
    let settledAt = 0;
    const a = candidate(api, clock, 'a', {
      onStartedLeading: (term) =>
        new Promise<void>((resolve) =>
          term.signal.addEventListener('abort', () => {
            clock.setTimer(() => ((settledAt = clock.now()), resolve()), 1500);
          }),
        ),
    });
    await elapse(clock, 100);
    expect(a.elector.isLeader()).toBe(true);
    const stopping = a.stop();
    await elapse(clock, 2000);
    await stopping;
    const release = api.log.find((l) => l.who === 'a' && l.what === 'PUT ');
    expect(release).toBeDefined();
    expect(release!.at).toBeGreaterThanOrEqual(settledAt);
    expect(api.lease?.spec?.holderIdentity).toBe('');
    expect(api.lease?.spec?.leaseDurationSeconds).toBe(1);

    // The next candidate takes the released Lease at once, not a lease duration later.
    const b = candidate(api, clock, 'b');
    await elapse(clock, 100);
    expect(b.terms).toHaveLength(1);
    const stopped = b.stop();
    await elapse(clock, 100);
    await stopped;
  });

  it('leaves the Lease to expire when the term’s work does not settle within the drain timeout', async () => {
    const clock = new FakeClock();
    const api = new FakeLeaseApi(clock);
    const a = candidate(api, clock, 'a', {
      drainTimeoutMs: 3000,
      onStartedLeading: () => new Promise<void>(() => {}), // never settles: it may still write
    });
    await elapse(clock, 100);
    const stopping = a.stop();
    await elapse(clock, 3500);
    await stopping;
    expect(api.log.filter((l) => l.who === 'a').map((l) => l.what)).not.toContain('PUT ');
    expect(api.lease?.spec?.holderIdentity).toBe('a');

    const b = candidate(api, clock, 'b');
    await elapse(clock, 10_000);
    expect(b.terms).toHaveLength(0);
    await elapse(clock, 8000);
    expect(b.terms).toHaveLength(1);
    const stopped = b.stop();
    await elapse(clock, 100);
    await stopped;
  });

  it('holds a term until the renew deadline of the start of its last successful renewal, and not after it ends', async () => {
    const clock = new FakeClock();
    const api = new FakeLeaseApi(clock);
    const a = candidate(api, clock, 'a');
    await elapse(clock, 100);
    const term = a.terms[0]!.term!;
    expect(term.heldUntil()).toBe(TIMINGS.renewDeadlineMs); // acquired at 0
    await elapse(clock, 4000);
    const lastRenewal = api.log.filter((l) => l.who === 'a').at(-1)!.at;
    expect(term.heldUntil()).toBe(lastRenewal + TIMINGS.renewDeadlineMs);

    api.stalled.add('a');
    await elapse(clock, TIMINGS.renewDeadlineMs + TIMINGS.retryPeriodMs);
    expect(term.signal.aborted).toBe(true);
    expect(term.heldUntil()).toBe(-Infinity);
    api.stalled.clear();
    const stopped = a.stop();
    await elapse(clock, 3000);
    await stopped;
  });

  it('ends the term at the renew deadline when renewals stall, before the Lease can expire for another', async () => {
    const clock = new FakeClock();
    const api = new FakeLeaseApi(clock);
    const a = candidate(api, clock, 'a');
    await elapse(clock, 100);
    const b = candidate(api, clock, 'b');
    await elapse(clock, 5000);
    expect(a.terms).toHaveLength(1);
    expect(b.terms).toHaveLength(0);

    api.stalled.add('a');
    const lastRenew = api.log.filter((l) => l.who === 'a').at(-1)!.at;
    await elapse(clock, 30_000);
    const [term] = a.terms;
    expect(term!.why).toBe('lost');
    // Its term ended within the renew deadline of its last renewal (attempts are aborted there) …
    expect(term!.ended! - lastRenew).toBeLessThanOrEqual(TIMINGS.renewDeadlineMs + TIMINGS.retryPeriodMs);
    // … and the other candidate only led a whole lease duration after it last saw a renewal.
    expect(b.terms).toHaveLength(1);
    expect(b.terms[0]!.started).toBeGreaterThanOrEqual(lastRenew + TIMINGS.leaseDurationMs);
    expect(term!.ended!).toBeLessThan(b.terms[0]!.started);
    api.stalled.clear();
    const stops = [a.stop(), b.stop()];
    await elapse(clock, 3000);
    await Promise.all(stops);
  });

  it('judges a Lease held by another by the record’s own leaseDurationSeconds', async () => {
    const clock = new FakeClock();
    const api = new FakeLeaseApi(clock);
    api.setHolder('other', 60);
    const a = candidate(api, clock, 'a');
    await elapse(clock, 30_000);
    expect(a.terms).toHaveLength(0); // our own 15 s would have taken it long ago
    await elapse(clock, 35_000);
    expect(a.terms).toHaveLength(1);
    const stopped = a.stop();
    await elapse(clock, 100);
    await stopped;
  });

  it('ends the term at once when another holder is seen, and starts no new term while the last one drains', async () => {
    const clock = new FakeClock();
    const api = new FakeLeaseApi(clock);
    const settled: number[] = [];
    const started: number[] = [];
    const a = candidate(api, clock, 'a', {
      drainTimeoutMs: 60_000,
      onStartedLeading: (term) => {
        started.push(clock.now());
        // The first term takes 25 s to wind down: longer than the thief's Lease lasts.
        return new Promise<void>((resolve) =>
          term.signal.addEventListener('abort', () =>
            clock.setTimer(() => (settled.push(clock.now()), resolve()), started.length === 1 ? 25_000 : 0),
          ),
        );
      },
    });
    await elapse(clock, 100);
    expect(started).toHaveLength(1);
    api.setHolder('thief', 15);
    const stolenAt = clock.now();
    await elapse(clock, 2500);
    expect(a.elector.isLeader()).toBe(false); // seen at the next renewal, not at the deadline
    await elapse(clock, 40_000);
    expect(started).toHaveLength(2);
    expect(started[1]!).toBeGreaterThanOrEqual(settled[0]!);
    expect(settled[0]! - stolenAt).toBeGreaterThanOrEqual(25_000);
    const stopped = a.stop();
    await elapse(clock, 3000);
    await stopped;
  });
});
