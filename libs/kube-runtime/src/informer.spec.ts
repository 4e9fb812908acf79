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
const pod = (name: string, rv: string, labels?: Record<string, string>, namespace = 'd'): Pod => ({
  kind: 'Pod',
  metadata: { name, namespace, resourceVersion: rv, ...(labels ? { labels } : {}) },
});

/** What the informer keeps of each list/watch: its sink is what the reflector would call. */
interface PartitionInternals {
  resource: { namespace?: string };
  reflector?: { relist(): void };
}
type InformerInternals = {
  partitions: PartitionInternals[];
  sink(partition: PartitionInternals): ReflectorSink<Pod>;
};

function informerWithSinks(
  options: { clock?: FakeClock; resyncPeriodMs?: number; namespaces?: string[] } = {},
) {
  const clock = options.clock ?? new FakeClock();
  const informer = new SharedInformer<Pod>({
    client: {} as KubeClient,
    resource: { group: '', version: 'v1', plural: 'pods' },
    namespaces: options.namespaces,
    kind: 'Pod',
    resyncPeriodMs: options.resyncPeriodMs,
    clock,
  });
  // Reach the sinks without a server.
  const internals = informer as unknown as InformerInternals;
  const sinks = internals.partitions.map((partition) => internals.sink(partition));
  const relists = { count: 0 };
  for (const partition of internals.partitions) partition.reflector = { relist: () => (relists.count += 1) };
  return { informer, sinks, relists, clock };
}

function informerWithSink(clock = new FakeClock(), resyncPeriodMs?: number) {
  const { informer, sinks, relists } = informerWithSinks({ clock, resyncPeriodMs });
  return { informer, sink: sinks[0]!, relists, clock };
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
    const { informer, sink, relists } = informerWithSink(clock);
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
    expect(relists.count).toBe(0);
    clock.advance(1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(relists.count).toBe(1);
    sink.replace([pod('a', '5'), pod('b', '21')], '22');
    sink.progressed!('22');
    expect(await byRelist).toBe('relist');
    expect(clock.pendingTimers()).toBe(0);
  });

  it('gives up catching up when its signal aborts', async () => {
    const clock = new FakeClock();
    const { informer } = informerWithSink(clock);
    const abort = new AbortController();
    const catching = informer.catchUp('8', { patienceMs: 1000, signal: abort.signal });
    clock.advance(1000);
    await new Promise((resolve) => setImmediate(resolve));
    abort.abort();
    expect(await catching).toBe(false);
  });
});

describe('SharedInformer over several namespaces', () => {
  it('lists and watches each namespace into one cache, synced once every namespace has listed', async () => {
    const { informer, sinks } = informerWithSinks({ namespaces: ['a', 'b', 'a'] });
    expect(sinks).toHaveLength(2);
    expect(informer.resource.namespace).toBe('a');
    const synced = informer.waitForCacheSync();
    sinks[0]!.replace([pod('x', '3', undefined, 'a')], '3');
    expect(informer.hasSynced()).toBe(false);
    sinks[1]!.replace([pod('y', '4', undefined, 'b')], '4');
    expect(await synced).toBe(true);
    expect(informer.cache.keys().sort()).toEqual(['a/x', 'b/y']);
    expect(informer.cache.byIndex('namespace', 'b').map((o) => o.metadata.name)).toEqual(['y']);
  });

  it("relists one namespace without touching the other's objects", () => {
    const { informer, sinks } = informerWithSinks({ namespaces: ['a', 'b'] });
    const { calls, handlers } = recorder();
    sinks[0]!.replace([pod('x', '3', undefined, 'a')], '3');
    sinks[1]!.replace([pod('y', '4', undefined, 'b')], '4');
    informer.addEventHandler(handlers);
    sinks[1]!.replace([], '9');
    expect(calls.sort()).toEqual(['add x@3 (list)', 'add y@4 (list)', 'delete tombstone b/y']);
    expect(informer.cache.keys()).toEqual(['a/x']);
  });

  it('reflects a resourceVersion once every namespace has passed it, and relists them all to catch up', async () => {
    const clock = new FakeClock();
    const { informer, sinks, relists } = informerWithSinks({ clock, namespaces: ['a', 'b'] });
    sinks[0]!.progressed!('10');
    expect(informer.lastSyncResourceVersion).toBe('');
    sinks[1]!.progressed!('7');
    expect(informer.lastSyncResourceVersion).toBe('7');
    const waiting = informer.waitForResourceVersion('9');
    let settled = false;
    void waiting.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    sinks[1]!.progressed!('12');
    expect(await waiting).toBe(true);
    expect(informer.lastSyncResourceVersion).toBe('10');

    const catching = informer.catchUp('20', { patienceMs: 100, signal: new AbortController().signal });
    clock.advance(100);
    await new Promise((resolve) => setImmediate(resolve));
    expect(relists.count).toBe(2);
    sinks[0]!.progressed!('21');
    sinks[1]!.progressed!('21');
    expect(await catching).toBe('relist');
  });
});
