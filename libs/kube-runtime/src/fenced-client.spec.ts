import { describe, expect, it } from 'vitest';
import type { KubeRequest, KubeRequester } from './client.js';
import { FencedClient } from './fenced-client.js';
import { FakeClock } from './testing/fake-clock.js';

/** Answers each request when the test says so, or fails it when its signal aborts. */
class HeldApi implements KubeRequester {
  readonly sent: KubeRequest[] = [];
  private readonly pending: ((answer: unknown) => void)[] = [];

  request<T>(req: KubeRequest): Promise<T> {
    req.fence?.throwIfAborted();
    this.sent.push(req);
    return new Promise<T>((resolve, reject) => {
      this.pending.push((answer) => resolve(answer as T));
      req.signal?.addEventListener('abort', () => reject(req.signal!.reason), { once: true });
    });
  }

  answer(value: unknown = {}): void {
    this.pending.shift()?.(value);
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('FencedClient', () => {
  it('sends nothing once its term has ended', async () => {
    const api = new HeldApi();
    const term = new AbortController();
    const client = new FencedClient(api, term.signal);
    term.abort(new Error('term over'));
    await expect(client.request({ path: '/x' })).rejects.toThrow('term over');
    expect(api.sent).toEqual([]);
  });

  it('lets a request on the wire finish within the grace, and aborts one that takes longer', async () => {
    const clock = new FakeClock();
    const api = new HeldApi();
    const term = new AbortController();
    const client = new FencedClient(api, term.signal, { graceMs: 1000, clock });
    const quick = client.request({ method: 'POST', path: '/quick' });
    const slow = client.request({ method: 'POST', path: '/slow' });
    await flush();
    term.abort(new Error('term over'));
    clock.advance(500);
    api.answer({ kind: 'Pod', metadata: { resourceVersion: '1' } });
    await expect(quick).resolves.toMatchObject({ kind: 'Pod' });
    expect(client.pending).toBe(1);
    clock.advance(600);
    await expect(slow).rejects.toThrow('term over');
    await client.idle();
    expect(client.pending).toBe(0);
  });

  it('hands the answers of writes, and only of writes, to onWrite', async () => {
    const api = new HeldApi();
    const written: unknown[] = [];
    const client = new FencedClient(api, new AbortController().signal, { onWrite: (o) => written.push(o) });
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
      const answer = client.request({ method, path: '/x' });
      await flush();
      api.answer({ kind: 'Pod', metadata: { name: method } });
      await answer;
    }
    expect(written.map((o) => (o as { metadata: { name: string } }).metadata.name)).toEqual([
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
    ]);
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
    api.answer();
    await answer;
  });
});
