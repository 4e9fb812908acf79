import { describe, expect, it } from 'vitest';
import { KubeApiError } from './api-error.js';
import { Fenced, type KubeRequest, type KubeRequester } from './client.js';
import { endedWithTerm, FencedClient } from './fenced-client.js';
import { LeadershipEnded } from './leader-election.js';
import { FakeClock } from './testing/fake-clock.js';

/**
 * Answers or fails each request when the test says so, or fails it when its signal aborts. Like KubeClient, it
 * refuses to send a request whose fence fired or whose `sendBy` moment has passed.
 */
class HeldApi implements KubeRequester {
  readonly sent: KubeRequest[] = [];
  private readonly pending: { resolve: (answer: unknown) => void; reject: (error: unknown) => void }[] = [];

  constructor(private readonly clock = new FakeClock()) {}

  request<T>(req: KubeRequest): Promise<T> {
    req.fence?.throwIfAborted();
    if (req.sendBy && this.clock.now() >= req.sendBy()) throw new Fenced(this.clock.now() - req.sendBy());
    this.sent.push(req);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ resolve: (answer) => resolve(answer as T), reject });
      req.signal?.addEventListener('abort', () => reject(req.signal!.reason), { once: true });
    });
  }

  answer(value: unknown = {}): void {
    this.pending.shift()?.resolve(value);
  }

  fail(error: unknown): void {
    this.pending.shift()?.reject(error);
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const status = (code: number) => new KubeApiError(code, { kind: 'Status', code });

/** Whether `promise` has settled after the pending callbacks ran. */
async function settledYet(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await flush();
  return done;
}

describe('FencedClient', () => {
  it('gives each write an Audit-ID of its own unless it names one, and reads none', async () => {
    const api = new HeldApi();
    let next = 0;
    const client = new FencedClient(api, new AbortController().signal, { auditId: () => `ctrl-${++next}` });
    void client.request({ method: 'POST', path: '/a' });
    void client.request({ method: 'PUT', path: '/b', auditId: 'mine' });
    void client.request({ path: '/c' });
    expect(api.sent.map((req) => req.auditId)).toEqual(['ctrl-1', 'mine', undefined]);
    for (let i = 0; i < 3; i++) api.answer();
  });

  it('sends nothing once its term has ended', async () => {
    const api = new HeldApi();
    const term = new AbortController();
    const client = new FencedClient(api, term.signal);
    term.abort(new Error('term over'));
    await expect(client.request({ path: '/x' })).rejects.toThrow('term over');
    expect(api.sent).toEqual([]);
  });

  it('sends nothing past the moment the term is held until, though its signal has not aborted yet', async () => {
    const clock = new FakeClock();
    const api = new HeldApi(clock);
    let heldUntil = 1000;
    const client = new FencedClient(api, new AbortController().signal, { heldUntil: () => heldUntil, clock });
    clock.advance(999);
    const early = client.request({ method: 'POST', path: '/early' });
    api.answer();
    await early;
    clock.advance(1);
    await expect(client.request({ method: 'POST', path: '/late' })).rejects.toBeInstanceOf(Fenced);
    heldUntil = 3000; // a renewal moved it on
    const renewed = client.request({ method: 'POST', path: '/renewed' });
    api.answer();
    await renewed;
    expect(api.sent.map((r) => r.path)).toEqual(['/early', '/renewed']);
    // A refusal before sending is decided: nothing to wait out.
    expect(await client.settled()).toEqual({ undecided: 0 });
  });

  it('lets a write on the wire run to its answer after the term ended, and cuts a read at once', async () => {
    const api = new HeldApi();
    const term = new AbortController();
    const client = new FencedClient(api, term.signal);
    const write = client.request({ method: 'POST', path: '/pods' });
    const read = client.request({ path: '/pods/x' });
    await flush();
    term.abort(new Error('term over'));
    await expect(read).rejects.toThrow('term over');
    expect(client.pending).toBe(1);
    api.answer({ kind: 'Pod' });
    await expect(write).resolves.toMatchObject({ kind: 'Pod' });
    expect(await client.settled()).toEqual({ undecided: 0 });
  });

  it('gives every write a server-side deadline, and waits 1 s longer for its answer', async () => {
    const api = new HeldApi();
    const client = new FencedClient(api, new AbortController().signal, { writeDeadlineMs: 4000 });
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const answer = client.request({ method, path: '/x', query: { dryRun: 'All' } });
      await flush();
      api.answer();
      await answer;
    }
    expect(api.sent.map((r) => [r.method, r.query, r.timeoutMs])).toEqual([
      ['GET', { dryRun: 'All' }, undefined],
      ...['POST', 'PUT', 'PATCH', 'DELETE'].map((m) => [m, { dryRun: 'All', timeout: '4000ms' }, 5000]),
    ]);
  });

  it('settles only once every write of unknown outcome is past its server deadline', async () => {
    const clock = new FakeClock();
    const api = new HeldApi(clock);
    const term = new AbortController();
    const client = new FencedClient(api, term.signal, { writeDeadlineMs: 4000, clock });
    const refused = client.request({ method: 'POST', path: '/refused' });
    const lost = client.request({ method: 'POST', path: '/lost' });
    const timedOut = client.request({ method: 'DELETE', path: '/timed-out' });
    await flush();
    term.abort(new Error('term over'));
    api.fail(status(409)); // refused: not stored
    api.fail(new Error('socket hang up')); // stored or not: unknown
    await expect(refused).rejects.toThrow();
    await expect(lost).rejects.toThrow('socket hang up');
    clock.advance(1000);
    api.fail(status(504)); // the server's own deadline: it may still have been stored
    await expect(timedOut).rejects.toThrow();

    const settled = client.settled();
    clock.advance(3999);
    expect(await settledYet(settled)).toBe(false);
    clock.advance(1);
    expect(await settled).toEqual({ undecided: 2 });
  });

  it('passes the term on as the fence of every request, next to the caller’s own', async () => {
    const api = new HeldApi();
    const term = new AbortController();
    const client = new FencedClient(api, term.signal);
    const own = new AbortController();
    const answer = client.request({ path: '/x', fence: own.signal });
    await flush();
    expect(api.sent[0]!.fence!.aborted).toBe(false);
    term.abort();
    expect(api.sent[0]!.fence!.aborted).toBe(true);
    await expect(answer).rejects.toThrow(); // a read: cut when the term ended
  });

  it('tells a request its term stopped, never sent or cut on the wire, from one the server refused', async () => {
    const api = new HeldApi();
    const term = new AbortController();
    const client = new FencedClient(api, term.signal);
    const read = client.request({ path: '/pods/x' });
    await flush();
    term.abort(new LeadershipEnded('lost'));
    const cut = await read.catch((error: unknown) => error);
    const unsent = await client.request({ path: '/pods/y' }).catch((error: unknown) => error);
    expect(cut).toBeInstanceOf(LeadershipEnded);
    expect(endedWithTerm(cut)).toBe(true);
    expect(endedWithTerm(unsent)).toBe(true);
    expect(endedWithTerm(new Fenced(1))).toBe(true);
    expect(endedWithTerm(status(409))).toBe(false);
    expect(endedWithTerm(new Error('socket hang up'))).toBe(false);
  });
});
