import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KubeApiError } from './api-error.js';
import { Backoff } from './backoff.js';
import type { KubeClient, KubeRequest } from './client.js';
import { Reflector } from './reflector.js';
import { FakeClock } from './testing/fake-clock.js';

// Unit tests of the reflector's state machine with a scripted client. Its behaviour against a real API server
// is covered by the integration tests in test/.

interface Pod {
  kind?: string;
  apiVersion?: string;
  metadata: {
    name: string;
    namespace: string;
    resourceVersion: string;
    annotations?: Record<string, string>;
  };
}
const pod = (name: string, rv: string): Pod => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name, namespace: 'd', resourceVersion: rv },
});
const line = (type: string, object: unknown) => `${JSON.stringify({ type, object })}\n`;

type ListAnswer = { items: Pod[]; resourceVersion: string; continue?: string } | Error;
type WatchAnswer = PassThrough | Error;

class ScriptedClient {
  readonly listQueries: KubeRequest['query'][] = [];
  readonly watchQueries: KubeRequest['query'][] = [];
  readonly openStreams: PassThrough[] = [];
  constructor(
    private readonly lists: ListAnswer[],
    private readonly watches: WatchAnswer[] = [],
  ) {}

  async request(req: KubeRequest) {
    this.listQueries.push(req.query);
    const answer = this.lists.shift() ?? { items: [], resourceVersion: '999' };
    if (answer instanceof Error) throw answer;
    return {
      kind: 'PodList',
      apiVersion: 'v1',
      metadata: { resourceVersion: answer.resourceVersion, continue: answer.continue },
      items: answer.items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest),
    };
  }

  async stream(req: KubeRequest) {
    this.watchQueries.push(req.query);
    const answer = this.watches.shift() ?? new PassThrough();
    if (answer instanceof Error) throw answer;
    this.openStreams.push(answer);
    req.signal?.addEventListener('abort', () => answer.destroy(), { once: true });
    return answer;
  }
}

function recordingSink() {
  const log: string[] = [];
  const state = new Map<string, string>();
  return {
    log,
    state,
    sink: {
      replace(objects: Pod[], rv: string) {
        log.push(`replace(${objects.map((o) => o.metadata.name).join(',')})@${rv}`);
        state.clear();
        for (const o of objects) state.set(o.metadata.name, o.metadata.resourceVersion);
      },
      apply(type: string, object: Pod) {
        log.push(`${type}:${object.metadata.name}@${object.metadata.resourceVersion}`);
        if (type === 'DELETED') state.delete(object.metadata.name);
        else state.set(object.metadata.name, object.metadata.resourceVersion);
      },
    },
  };
}

/** Waits for an observed condition (the bound only ends a test that would otherwise hang). */
async function until(done: () => boolean, timeoutMs = 3000) {
  await vi.waitFor(
    () => {
      if (!done()) throw new Error('condition not reached in time');
    },
    { timeout: timeoutMs, interval: 2 },
  );
}

const running: { abort: AbortController; done: Promise<void> }[] = [];
afterEach(async () => {
  for (const r of running.splice(0)) {
    r.abort.abort();
    await r.done;
  }
});

function start(
  client: ScriptedClient,
  sink: ReturnType<typeof recordingSink>['sink'],
  extra: Record<string, unknown> = {},
) {
  const reflector = new Reflector<Pod>({
    client: client as unknown as KubeClient,
    resource: { group: '', version: 'v1', plural: 'pods' },
    kind: 'Pod',
    sink,
    streamingList: false,
    backoff: new Backoff(1, 5, 0),
    ...extra,
  });
  const abort = new AbortController();
  const done = reflector.run(abort.signal);
  running.push({ abort, done });
  return reflector;
}

describe('Reflector', () => {
  it('lists all pages, then watches from the list resourceVersion with bookmarks and a randomised timeout', async () => {
    const client = new ScriptedClient([
      { items: [pod('a', '5')], resourceVersion: '10', continue: 'page2' },
      { items: [pod('b', '6')], resourceVersion: '10' },
    ]);
    const { sink, log } = recordingSink();
    start(client, sink, { minWatchTimeoutSeconds: 300 });
    await until(() => client.watchQueries.length === 1);
    expect(log).toEqual(['replace(a,b)@10']);
    expect(client.listQueries.map((q) => q?.continue)).toEqual([undefined, 'page2']);
    const watch = client.watchQueries[0]!;
    expect(watch).toMatchObject({ watch: true, allowWatchBookmarks: true, resourceVersion: '10' });
    expect(Number(watch.timeoutSeconds)).toBeGreaterThanOrEqual(300);
    expect(Number(watch.timeoutSeconds)).toBeLessThan(600);
  });

  it('retries a list that fails part way from the first page, never merging a partial list', async () => {
    const client = new ScriptedClient([
      { items: [pod('a', '5')], resourceVersion: '10', continue: 'p2' },
      new KubeApiError(500, { message: 'etcd timeout' }),
      { items: [pod('a', '5')], resourceVersion: '11', continue: 'p2' },
      { items: [pod('b', '6')], resourceVersion: '11' },
    ]);
    const { sink, log } = recordingSink();
    start(client, sink);
    await until(() => client.watchQueries.length === 1);
    expect(log).toEqual(['replace(a,b)@11']);
    expect(client.listQueries.map((q) => q?.continue)).toEqual([undefined, 'p2', undefined, 'p2']);
  });

  it('applies events, advances the resourceVersion on bookmarks, and re-watches from there when a watch ends', async () => {
    const first = new PassThrough();
    const client = new ScriptedClient([{ items: [], resourceVersion: '1' }], [first]);
    const { sink, log } = recordingSink();
    const reflector = start(client, sink);
    await until(() => client.watchQueries.length === 1);
    first.write(line('ADDED', pod('a', '2')));
    first.write(line('MODIFIED', pod('a', '3')));
    first.write(line('DELETED', pod('a', '4')));
    first.write(line('BOOKMARK', { kind: 'Pod', metadata: { resourceVersion: '7' } }));
    await until(() => reflector.lastSyncResourceVersion === '7');
    first.end();
    await until(() => client.watchQueries.length === 2);
    expect(log).toEqual(['replace()@1', 'ADDED:a@2', 'MODIFIED:a@3', 'DELETED:a@4']);
    expect(client.watchQueries[1]?.resourceVersion).toBe('7');
  });

  it('restarts the watch from the last good resourceVersion after a malformed line, applying nothing of it', async () => {
    const first = new PassThrough();
    const client = new ScriptedClient([{ items: [], resourceVersion: '1' }], [first]);
    const { sink, log } = recordingSink();
    start(client, sink);
    await until(() => client.watchQueries.length === 1);
    first.write(line('ADDED', pod('a', '2')));
    first.write('{"type":"MODIFIED","object":{"kind":"Pod"\n');
    await until(() => client.watchQueries.length === 2);
    expect(log).toEqual(['replace()@1', 'ADDED:a@2']);
    expect(client.watchQueries[1]?.resourceVersion).toBe('2');
    expect(first.destroyed).toBe(true);
  });

  it.each([
    ['an unknown event type', line('RENAMED', pod('a', '3'))],
    ['an object of another kind', line('ADDED', { ...pod('s', '3'), kind: 'Service' })],
    ['an object without a name', line('ADDED', { kind: 'Pod', metadata: { resourceVersion: '3' } })],
  ])('restarts the watch on %s', async (_what, bad) => {
    const first = new PassThrough();
    const client = new ScriptedClient([{ items: [], resourceVersion: '1' }], [first]);
    const { sink, log } = recordingSink();
    start(client, sink);
    await until(() => client.watchQueries.length === 1);
    first.write(bad);
    await until(() => client.watchQueries.length === 2);
    expect(log).toEqual(['replace()@1']);
    expect(client.watchQueries[1]?.resourceVersion).toBe('1');
  });

  it('restarts the watch when the stream closes in the middle of an event', async () => {
    const first = new PassThrough();
    const client = new ScriptedClient([{ items: [], resourceVersion: '1' }], [first]);
    const { sink } = recordingSink();
    start(client, sink);
    await until(() => client.watchQueries.length === 1);
    first.end(line('ADDED', pod('a', '2')).slice(0, 25));
    await until(() => client.watchQueries.length === 2);
    expect(client.watchQueries[1]?.resourceVersion).toBe('1');
  });

  it('relists on a 410 ERROR event and delivers what changed while away', async () => {
    const first = new PassThrough();
    const client = new ScriptedClient(
      [
        { items: [pod('a', '1'), pod('b', '1')], resourceVersion: '1' },
        { items: [pod('b', '5'), pod('c', '6')], resourceVersion: '9' },
      ],
      [first],
    );
    const { sink, log, state } = recordingSink();
    start(client, sink);
    await until(() => client.watchQueries.length === 1);
    first.write(
      line('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version' }),
    );
    await until(() => client.watchQueries.length === 2);
    expect(log).toEqual(['replace(a,b)@1', 'replace(b,c)@9']);
    expect([...state]).toEqual([
      ['b', '5'],
      ['c', '6'],
    ]);
    expect(client.watchQueries[1]?.resourceVersion).toBe('9');
  });

  it('relists when opening the watch answers 410 Gone', async () => {
    const client = new ScriptedClient(
      [
        { items: [], resourceVersion: '1' },
        { items: [pod('x', '3')], resourceVersion: '3' },
      ],
      [new KubeApiError(410, { reason: 'Expired', message: 'gone' })],
    );
    const { sink, log } = recordingSink();
    start(client, sink);
    await until(() => client.watchQueries.length === 2);
    expect(log).toEqual(['replace()@1', 'replace(x)@3']);
    expect(client.watchQueries[1]?.resourceVersion).toBe('3');
  });

  it('lists again at once when asked, ending the watch it was reading, with no resourceVersion (consistent)', async () => {
    const first = new PassThrough();
    const client = new ScriptedClient(
      [
        { items: [pod('a', '1')], resourceVersion: '1' },
        { items: [pod('a', '1'), pod('b', '7')], resourceVersion: '12' },
      ],
      [first],
    );
    const { sink, log } = recordingSink();
    const reflector = start(client, sink);
    await until(() => client.watchQueries.length === 1);
    reflector.relist();
    await until(() => client.watchQueries.length === 2);
    expect(first.destroyed).toBe(true);
    expect(log).toEqual(['replace(a)@1', 'replace(a,b)@12']);
    expect(client.listQueries.map((q) => q?.resourceVersion)).toEqual([undefined, undefined]);
    expect(client.watchQueries[1]?.resourceVersion).toBe('12');
    expect(reflector.lastSyncResourceVersion).toBe('12');
  });

  it('lists once more when asked while a list is under way (that list may be older than the request)', async () => {
    let answerFirstList!: () => void;
    const firstList = new Promise<void>((resolve) => (answerFirstList = resolve));
    const client = new ScriptedClient([
      { items: [], resourceVersion: '1' },
      { items: [pod('b', '4')], resourceVersion: '4' },
    ]);
    const request = client.request.bind(client);
    client.request = async (req: KubeRequest) => {
      if (client.listQueries.length === 0) await firstList;
      return request(req);
    };
    const { sink, log } = recordingSink();
    const reflector = start(client, sink);
    await until(() => true);
    reflector.relist();
    answerFirstList();
    await until(() => log.length === 2);
    expect(log).toEqual(['replace()@1', 'replace(b)@4']);
  });

  it('restarts a watch that delivers nothing for longer than the idle bound', async () => {
    const client = new ScriptedClient([{ items: [], resourceVersion: '1' }]);
    const { sink } = recordingSink();
    start(client, sink, { idleTimeoutMs: 30 });
    await until(() => client.watchQueries.length >= 2);
    expect(client.openStreams[0]?.destroyed).toBe(true);
  });

  it('uses a streaming list when offered and continues on the same stream', async () => {
    const stream = new PassThrough();
    const client = new ScriptedClient([], [stream]);
    const { sink, log } = recordingSink();
    const reflector = start(client, sink, { streamingList: 'auto' });
    await until(() => client.watchQueries.length === 1);
    expect(client.watchQueries[0]).toMatchObject({
      sendInitialEvents: true,
      resourceVersionMatch: 'NotOlderThan',
    });
    stream.write(line('ADDED', pod('a', '3')));
    stream.write(line('ADDED', pod('b', '4')));
    stream.write(
      line('BOOKMARK', {
        kind: 'Pod',
        metadata: { resourceVersion: '4', annotations: { 'k8s.io/initial-events-end': 'true' } },
      }),
    );
    stream.write(line('MODIFIED', pod('a', '5')));
    await until(() => reflector.lastSyncResourceVersion === '5');
    expect(log).toEqual(['replace(a,b)@4', 'MODIFIED:a@5']);
    expect(client.listQueries).toEqual([]);
  });

  it('falls back to LIST when the server refuses a streaming list', async () => {
    const client = new ScriptedClient(
      [{ items: [pod('a', '1')], resourceVersion: '2' }],
      [new KubeApiError(422, { reason: 'Invalid', message: 'sendInitialEvents is forbidden' })],
    );
    const { sink, log } = recordingSink();
    start(client, sink, { streamingList: 'auto' });
    await until(() => client.watchQueries.length === 2);
    expect(log).toEqual(['replace(a)@2']);
    expect(client.watchQueries[1]).not.toHaveProperty('sendInitialEvents');
  });

  it('backs off between failures instead of looping hot', async () => {
    const failures = Array.from({ length: 50 }, () => new KubeApiError(503, { message: 'unavailable' }));
    const client = new ScriptedClient(failures);
    const { sink } = recordingSink();
    const clock = new FakeClock();
    start(client, sink, { backoff: new Backoff(20, 40, 0), clock });
    // Each failed list is followed by exactly one wait on the clock: 20 ms, then 40 ms (the cap), then 40 ms.
    for (const [attempt, delay] of [
      [1, 20],
      [2, 40],
      [3, 40],
    ] as const) {
      await until(() => client.listQueries.length === attempt && clock.pendingTimers() === 1);
      clock.advance(delay - 1);
      // The wait is still pending and nothing was retried: its timer has not fallen due.
      expect(clock.pendingTimers()).toBe(1);
      expect(client.listQueries).toHaveLength(attempt);
      clock.advance(1);
      await until(() => client.listQueries.length === attempt + 1);
    }
  });
});
