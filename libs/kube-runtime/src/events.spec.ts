import { describe, expect, it } from 'vitest';
import type { KubeClient, KubeRequest } from './client.js';
import { EventRecorder } from './events.js';

/** A client whose requests wait until the test answers them. */
function heldClient() {
  const held: { req: KubeRequest; answer: () => void }[] = [];
  const client = {
    request: (req: KubeRequest) => new Promise((resolve) => held.push({ req, answer: () => resolve({}) })),
  } as unknown as KubeClient;
  return { client, held };
}

const pod = (i: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `p${i}`, namespace: 'default', uid: `uid-${i}` },
});

/**
 * Kept, as a turn of the event loop rather than a timer: the recorder's work on this in-memory client is promise
 * continuations only (no I/O, no timers), and every one of them runs before the next turn, so after it the
 * writes it was going to start have started.
 */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('EventRecorder', () => {
  it('writes at most maxInFlight events at once, the rest in turn', async () => {
    const { client, held } = heldClient();
    const recorder = new EventRecorder({ client, component: 'c', instance: 'i', maxInFlight: 2 });
    for (let i = 0; i < 5; i++) recorder.event(pod(i), 'Normal', 'Created', `pod ${i}`);
    await settle();
    expect(held).toHaveLength(2);
    held[0]!.answer();
    await settle();
    await settle();
    expect(held).toHaveLength(3);
    for (let answered = 1; answered < 5; answered++) {
      held[answered]!.answer();
      await settle();
      await settle();
    }
    await recorder.flush();
    expect(held.map((h) => (h.req.body as { message: string }).message)).toEqual([
      'pod 0',
      'pod 1',
      'pod 2',
      'pod 3',
      'pod 4',
    ]);
    expect(held.every((h) => h.req.priority === 'low')).toBe(true);
  });

  it('drops and counts events beyond maxQueued while the API server is slow', async () => {
    const { client, held } = heldClient();
    const recorder = new EventRecorder({
      client,
      component: 'c',
      instance: 'i',
      maxInFlight: 1,
      maxQueued: 3,
    });
    for (let i = 0; i < 10; i++) recorder.event(pod(i), 'Normal', 'Created', `pod ${i}`);
    expect(recorder.droppedCount).toBe(7);
    for (let i = 0; i < 3; i++) {
      await settle();
      await settle();
      held[i]!.answer();
    }
    await recorder.flush();
    expect(held).toHaveLength(3);
    recorder.event(pod(11), 'Normal', 'Created', 'after the backlog');
    await settle();
    expect(held).toHaveLength(4);
  });

  it('tells onWritten what the API server answered to each write that succeeded, the count patches too', async () => {
    const requests: KubeRequest[] = [];
    const client = {
      request: async (req: KubeRequest) => {
        requests.push(req);
        if (requests.length === 3) throw new Error('connection reset'); // the third write fails
        const body = (req.body ?? {}) as Record<string, unknown>;
        return {
          ...body,
          metadata: { name: 'e', namespace: 'default', resourceVersion: String(requests.length) },
        };
      },
    } as unknown as KubeClient;
    const written: unknown[] = [];
    const happened: Date[] = [];
    const recorder = new EventRecorder({
      client,
      component: 'c',
      instance: 'i',
      onWritten: (event, happenedAt) => {
        written.push(event);
        happened.push(happenedAt);
      },
    });
    const before = Date.now();
    for (let i = 0; i < 3; i++) recorder.event(pod(1), 'Warning', 'FailedCreate', 'quota');
    const after = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await recorder.flush();
    // When each was emitted, to the millisecond, not when it was written.
    for (const at of happened) expect([at.getTime() >= before, at.getTime() <= after]).toEqual([true, true]);
    expect(requests.map((req) => req.method)).toEqual(['POST', 'PATCH', 'PATCH']);
    expect(written).toEqual([
      expect.objectContaining({
        reason: 'FailedCreate',
        count: 1,
        metadata: expect.objectContaining({ resourceVersion: '1' }),
      }),
      expect.objectContaining({ count: 2, metadata: expect.objectContaining({ resourceVersion: '2' }) }),
    ]);
  });
});
