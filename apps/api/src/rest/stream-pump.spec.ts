import { PassThrough, Readable, Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { pump } from './stream-pump.js';

/** A client whose buffer is full after one chunk and which drains only when told to (or never). */
function slowClient() {
  const received: string[] = [];
  let drainNow: (() => void) | undefined;
  const client = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk.toString());
      drainNow = callback;
    },
  });
  return { client, received, drain: () => drainNow?.() };
}

describe('pump', () => {
  it('stops reading upstream while the client is full, and goes on once it drains', async () => {
    const upstream = new PassThrough();
    const { client, received, drain } = slowClient();
    const done = pump(upstream, client, { cutOnUpstreamFailure: true, stallMs: 5_000 });
    upstream.write('a');
    upstream.write('b');
    // Once paused, upstream emits no 'data' until resumed: 'b' stays with it.
    await vi.waitFor(() => expect(upstream.isPaused()).toBe(true));
    expect(received).toEqual(['a']);
    expect(upstream.isPaused()).toBe(true);
    drain();
    await vi.waitFor(() => expect(received).toEqual(['a', 'b']));
    drain();
    upstream.end();
    await done;
    expect(received).toEqual(['a', 'b']);
  });

  it('cuts a client that does not drain within the stall bound, and the upstream request with it', async () => {
    const upstream = new PassThrough();
    const { client } = slowClient();
    const done = pump(upstream, client, { cutOnUpstreamFailure: false, stallMs: 50 });
    upstream.write('a');
    upstream.write('b');
    await done;
    expect(client.destroyed).toBe(true);
    expect(upstream.destroyed).toBe(true);
  });

  it('cuts a list whose upstream breaks off, and ends a watch whose upstream does', async () => {
    for (const [cut, expectDestroyed] of [
      [true, true],
      [false, false],
    ] as const) {
      const upstream = new Readable({ read() {} });
      const chunks: string[] = [];
      let ended = false;
      const client = new Writable({
        write(chunk: Buffer, _encoding, callback) {
          chunks.push(chunk.toString());
          callback();
        },
        final(callback) {
          ended = true;
          callback();
        },
      });
      const done = pump(upstream, client, { cutOnUpstreamFailure: cut, stallMs: 1000 });
      upstream.push('{"items": [');
      upstream.destroy(new Error('upstream reset'));
      await done;
      expect(client.destroyed && !ended).toBe(expectDestroyed);
    }
  });

  it('cuts the client at once for an upstream that broke off before it was handed over', async () => {
    const upstream = new PassThrough();
    upstream.on('error', () => {}); // its first reader's
    upstream.destroy(new Error('socket hang up'));
    await new Promise((resolve) => setImmediate(resolve));
    const { client } = slowClient();
    await pump(upstream, client, { cutOnUpstreamFailure: true, stallMs: 5_000 });
    expect(client.destroyed).toBe(true);
  });
});
