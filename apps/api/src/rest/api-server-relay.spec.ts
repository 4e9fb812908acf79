import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { KubeClient, KubeResponse } from '@ngx/kube-runtime';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { ApiServerRelay } from './api-server-relay.js';
import type { RelayLimits } from './relay-limits.js';

/** An upstream answer declaring `length` bytes (or, like most of kube-apiserver's, no length), written by the test. */
function upstreamAnswer(length?: number): PassThrough & KubeResponse {
  const declared = length === undefined ? {} : { 'content-length': String(length) };
  return Object.assign(new PassThrough(), {
    statusCode: 200,
    headers: { ...declared, 'content-type': 'application/json', 'x-internal': 'no' },
  });
}

/** A client's response that takes writes as a socket would, keeping what came in each write. */
function streamingClient() {
  const writes: Buffer[] = [];
  const head: { code?: number; headers?: Record<string, unknown> } = {};
  const res = Object.assign(
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        writes.push(chunk);
        callback();
      },
    }),
    {
      writeHead(code: number, headers: Record<string, unknown>) {
        Object.assign(head, { code, headers });
        return res;
      },
    },
  );
  return { res: res as unknown as ServerResponse, writes, head };
}

/** A client's response as the relay uses it: `close` is the client going away. */
function clientExchange() {
  const written: { code?: number; headers?: Record<string, unknown>; body?: Buffer } = {};
  const res = Object.assign(new EventEmitter(), {
    writableFinished: false,
    writeHead(code: number, headers: Record<string, unknown>) {
      written.code = code;
      written.headers = headers;
      return res;
    },
    end(body: Buffer) {
      written.body = body;
      return res;
    },
  });
  return {
    res: res as unknown as ServerResponse,
    closeByClient: () => res.emit('close'),
    written,
  };
}

function relayTo(upstream: KubeResponse): ApiServerRelay {
  const client = { forward: () => Promise.resolve(upstream) } as unknown as KubeClient;
  return new ApiServerRelay(client, { watchesPerToken: 2, stallMs: 1_000 } satisfies RelayLimits);
}

const object = Buffer.from(JSON.stringify({ kind: 'Nginx', metadata: { name: 'web' } }));

describe('ApiServerRelay.pipe, an answer small enough to send in one write', () => {
  it.each([
    ['declares its length', object.length],
    ['declares no length, as most of kube-apiserver’s do', undefined],
  ])('reads one that %s whole and writes it once, with the relayed headers only', async (_what, length) => {
    const upstream = upstreamAnswer(length);
    const { res, written } = clientExchange();
    const piped = relayTo(upstream).pipe({ path: '/x' }, res);
    upstream.write(object.subarray(0, 10));
    upstream.end(object.subarray(10));
    await piped;
    expect(written).toEqual({
      code: 200,
      headers: { 'content-type': 'application/json', 'content-length': object.length },
      body: object,
    });
  });

  it('answers 503 and writes nothing of it when the answer breaks off upstream', async () => {
    const upstream = upstreamAnswer(object.length);
    const { res, written } = clientExchange();
    const piped = relayTo(upstream).pipe({ path: '/x' }, res);
    upstream.write(object.subarray(0, 10));
    upstream.destroy(new Error('socket hang up'));
    const error = await piped.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StatusException);
    expect(error).toMatchObject({
      code: 503,
      message: expect.stringMatching(/answer broke off: socket hang up/),
    });
    expect(written).toEqual({});
  });

  it('answers 499 when the client went away before the answer was read', async () => {
    const upstream = upstreamAnswer(object.length);
    const { res, closeByClient, written } = clientExchange();
    const piped = relayTo(upstream).pipe({ path: '/x' }, res);
    upstream.write(object.subarray(0, 10));
    await new Promise((resolve) => setImmediate(resolve));
    closeByClient();
    upstream.destroy(new Error('aborted'));
    await expect(piped).rejects.toMatchObject({ code: 499 });
    expect(written).toEqual({});
  });
});

describe('ApiServerRelay.pipe, an answer longer than the bound', () => {
  const part = Buffer.alloc(40 * 1024, 'a');

  it('streams it: what was read first, then the rest as it comes', async () => {
    const upstream = upstreamAnswer();
    const { res, writes, head } = streamingClient();
    const piped = relayTo(upstream).pipe({ path: '/x' }, res);
    upstream.write(part);
    upstream.write(part);
    upstream.end(Buffer.from('end'));
    await piped;
    expect(head).toEqual({ code: 200, headers: { 'content-type': 'application/json' } });
    expect(Buffer.concat(writes)).toEqual(Buffer.concat([part, part, Buffer.from('end')]));
    expect(writes[0]!.length).toBe(2 * part.length); // the first 64 KiB and more, in one write
    expect(res.writableEnded).toBe(true);
  });

  it('cuts the client when it breaks off upstream after streaming began', async () => {
    const upstream = upstreamAnswer();
    const { res } = streamingClient();
    const piped = relayTo(upstream).pipe({ path: '/x' }, res);
    upstream.write(part);
    upstream.write(part);
    await new Promise((resolve) => setImmediate(resolve));
    upstream.destroy(new Error('socket hang up'));
    await piped;
    expect(res.destroyed).toBe(true);
    expect(res.writableFinished).toBe(false);
  });
});
