import { describe, expect, it } from 'vitest';
import { DeletedFinalStateUnknown, SharedInformer, type EventHandlers } from './informer.js';
import type { KubeClient } from './client.js';
import type { KubeObject } from './object.js';
import type { ReflectorSink } from './reflector.js';
import { FakeClock } from './testing/fake-clock.js';

// The informer's dispatch and cache semantics, driven through the sink its reflector writes to.

type Pod = KubeObject & {
  metadata: { name: string; namespace: string; resourceVersion: string; labels?: Record<string, string> };
};
const pod = (name: string, rv: string, labels?: Record<string, string>): Pod => ({
  kind: 'Pod',
  metadata: { name, namespace: 'd', resourceVersion: rv, ...(labels ? { labels } : {}) },
});

function informerWithSink(clock = new FakeClock(), resyncPeriodMs?: number) {
  const informer = new SharedInformer<Pod>({
    client: {} as KubeClient,
    resource: { group: '', version: 'v1', plural: 'pods' },
    kind: 'Pod',
    resyncPeriodMs,
    clock,
  });
  // The sink is what the reflector would call; reach it without a server.
  const sink = (informer as unknown as { sink(): ReflectorSink<Pod> }).sink();
  return { informer, sink, clock };
}

function recorder() {
  const calls: string[] = [];
  const handlers: EventHandlers<Pod> = {
    add: (o, initial) =>
      calls.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}${initial ? ' (list)' : ''}`),
    update: (p, c) =>
      calls.push(`update ${c.metadata.name} ${p.metadata.resourceVersion}->${c.metadata.resourceVersion}`),
    delete: (o) =>
      calls.push(
        o instanceof DeletedFinalStateUnknown ? `delete tombstone ${o.key}` : `delete ${o.metadata.name}`,
      ),
  };
  return { calls, handlers };
}

describe('SharedInformer', () => {
  it('syncs on the first list and dispatches adds, updates and deletes to every handler', async () => {
    const { informer, sink } = informerWithSink();
    const one = recorder();
    const two = recorder();
    informer.addEventHandler(one.handlers);
    informer.addEventHandler(two.handlers);
    expect(informer.hasSynced()).toBe(false);
    const synced = informer.waitForCacheSync();

    sink.replace([pod('a', '1')], '1');
    expect(await synced).toBe(true);
    sink.apply('ADDED', pod('b', '2'));
    sink.apply('MODIFIED', pod('a', '3'));
    sink.apply('DELETED', pod('b', '4'));

    expect(one.calls).toEqual(['add a@1 (list)', 'add b@2', 'update a 1->3', 'delete b']);
    expect(two.calls).toEqual(one.calls);
    expect(informer.cache.keys()).toEqual(['d/a']);
  });

  it('delivers objects that vanished during a relist as tombstones with their last state', () => {
    const { informer, sink } = informerWithSink();
    const { calls, handlers } = recorder();
    informer.addEventHandler(handlers);
    sink.replace([pod('a', '1'), pod('b', '1')], '1');
    sink.replace([pod('a', '2')], '5');
    expect(calls).toEqual(['add a@1 (list)', 'add b@1 (list)', 'update a 1->2', 'delete tombstone d/b']);
  });

  it('replays the cache as adds to a handler that joins late', () => {
    const { informer, sink } = informerWithSink();
    sink.replace([pod('a', '1'), pod('b', '1')], '1');
    const { calls, handlers } = recorder();
    informer.addEventHandler(handlers);
    expect(calls.sort()).toEqual(['add a@1 (list)', 'add b@1 (list)']);
  });

  it('keeps going when a handler throws, and other handlers still see the event', () => {
    const { informer, sink } = informerWithSink();
    informer.addEventHandler({
      add: () => {
        throw new Error('handler bug');
      },
    });
    const { calls, handlers } = recorder();
    informer.addEventHandler(handlers);
    sink.replace([pod('a', '1')], '1');
    sink.apply('ADDED', pod('b', '2'));
    expect(calls).toEqual(['add a@1 (list)', 'add b@2']);
  });

  it('hands handlers frozen objects they cannot change', () => {
    const { informer, sink } = informerWithSink();
    let seen: Pod | undefined;
    informer.addEventHandler({ add: (o) => (seen = o) });
    sink.apply('ADDED', pod('a', '1', { app: 'web' }));
    expect(() => (seen!.metadata.labels!.app = 'evil')).toThrow(TypeError);
    expect(informer.cache.get('d/a')?.metadata?.labels?.app).toBe('web');
  });

  it('unregisters a handler', () => {
    const { informer, sink } = informerWithSink();
    const { calls, handlers } = recorder();
    const remove = informer.addEventHandler(handlers);
    remove();
    sink.apply('ADDED', pod('a', '1'));
    expect(calls).toEqual([]);
  });

  it('replays the cache as updates every resync period while running', async () => {
    const clock = new FakeClock();
    const { informer, sink } = informerWithSink(clock, 1000);
    const { calls, handlers } = recorder();
    informer.addEventHandler(handlers);
    (informer as unknown as { reflector: unknown }).reflector = undefined;
    sink.replace([pod('a', '1')], '1');
    // Start the resync timer without a server: run() would also start the reflector, so start the timer alone.
    const abort = new AbortController();
    const timer = (informer as unknown as { startResync(s: AbortSignal): { cancel(): void } }).startResync(
      abort.signal,
    );
    clock.advance(1000);
    clock.advance(1000);
    expect(calls).toEqual(['add a@1 (list)', 'update a 1->1', 'update a 1->1']);
    timer.cancel();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('waitForCacheSync resolves false when its signal aborts first', async () => {
    const { informer } = informerWithSink();
    const abort = new AbortController();
    const waiting = informer.waitForCacheSync(abort.signal);
    abort.abort();
    expect(await waiting).toBe(false);
  });

  it('waits for a resourceVersion until the list, an event or a bookmark reaches it', async () => {
    const { informer, sink } = informerWithSink();
    const early = informer.waitForResourceVersion('7');
    let settled = false;
    void early.then(() => (settled = true));
    sink.replace([pod('a', '5')], '5');
    sink.progressed!('5');
    await Promise.resolve();
    expect(settled).toBe(false);
    sink.progressed!('12'); // a bookmark past it
    expect(await early).toBe(true);
    expect(informer.lastSyncResourceVersion).toBe('12');
    expect(await informer.waitForResourceVersion('9')).toBe(true); // already reached
  });

  it('stops waiting for a resourceVersion when its signal aborts, and waits only for the list when versions do not compare', async () => {
    const { informer, sink } = informerWithSink();
    const abort = new AbortController();
    const waiting = informer.waitForResourceVersion('100', abort.signal);
    abort.abort();
    expect(await waiting).toBe(false);
    const opaque = informer.waitForResourceVersion('not-a-revision');
    sink.progressed!('3');
    expect(await opaque).toBe(true);
  });

  it('catches up through its watch when that gets there within the patience, and relists otherwise', async () => {
    const clock = new FakeClock();
    const { informer, sink } = informerWithSink(clock);
    let relists = 0;
    (informer as unknown as { reflector: { relist(): void } }).reflector = { relist: () => (relists += 1) };
    sink.replace([pod('a', '5')], '5');
    sink.progressed!('5');
    const signal = new AbortController().signal;

    const byWatch = informer.catchUp('8', { patienceMs: 1000, signal });
    clock.advance(500);
    sink.progressed!('9'); // an event past it
    expect(await byWatch).toBe('watch');

    const byRelist = informer.catchUp('20', { patienceMs: 1000, signal });
    clock.advance(999);
    await Promise.resolve();
    expect(relists).toBe(0);
    clock.advance(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(relists).toBe(1);
    sink.replace([pod('a', '5'), pod('b', '21')], '22');
    sink.progressed!('22');
    expect(await byRelist).toBe('relist');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('gives up catching up when its signal aborts', async () => {
    const clock = new FakeClock();
    const { informer } = informerWithSink(clock);
    (informer as unknown as { reflector: { relist(): void } }).reflector = { relist: () => {} };
    const abort = new AbortController();
    const catching = informer.catchUp('8', { patienceMs: 1000, signal: abort.signal });
    clock.advance(1000);
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    expect(await catching).toBe(false);
  });
});
