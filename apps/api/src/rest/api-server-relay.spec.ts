import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { KubeClient, KubeResponse } from '@ngx/kube-runtime';
import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import { StatusError } from '../http/kube-status.js';
import { ApiServerRelay } from './api-server-relay.js';
import type { RelayLimits } from './relay-limits.js';

/** An upstream answer declaring `length` bytes, written by the test. */
function upstreamAnswer(length: number): PassThrough & KubeResponse {
  return Object.assign(new PassThrough(), {
    statusCode: 200,
    headers: { 'content-length': String(length), 'content-type': 'application/json', 'x-internal': 'no' },
  });
}

/** A client's request and response as the relay uses them: `close` on the response is the client going away. */
function clientExchange() {
  const written: { code?: number; headers?: Record<string, unknown>; body?: Buffer } = {};
  const res = Object.assign(new EventEmitter(), {
    writableFinished: false,
    status(code: number) {
      written.code = code;
      return res;
    },
    set(headers: Record<string, unknown>) {
      written.headers = headers;
      return res;
    },
    end(body: Buffer) {
      written.body = body;
      return res;
    },
  });
  return {
    req: { res } as unknown as Request,
    res: res as unknown as Response,
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
  it('reads it whole and writes it once, with the relayed headers only', async () => {
    const upstream = upstreamAnswer(object.length);
    const { req, res, written } = clientExchange();
    const piped = relayTo(upstream).pipe({ path: '/x' }, req, res);
    upstream.write(object.subarray(0, 10));
    upstream.end(object.subarray(10));
    await piped;
    expect(written).toEqual({ code: 200, headers: { 'content-type': 'application/json' }, body: object });
  });

  it('answers 503 and writes nothing of it when the answer breaks off upstream', async () => {
    const upstream = upstreamAnswer(object.length);
    const { req, res, written } = clientExchange();
    const piped = relayTo(upstream).pipe({ path: '/x' }, req, res);
    upstream.write(object.subarray(0, 10));
    upstream.destroy(new Error('socket hang up'));
    const error = await piped.catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(StatusError);
    expect(error).toMatchObject({
      code: 503,
      message: expect.stringMatching(/answer broke off: socket hang up/),
    });
    expect(written).toEqual({});
  });

  it('answers 499 when the client went away before the answer was read', async () => {
    const upstream = upstreamAnswer(object.length);
    const { req, res, closeByClient, written } = clientExchange();
    const piped = relayTo(upstream).pipe({ path: '/x' }, req, res);
    upstream.write(object.subarray(0, 10));
    await new Promise((resolve) => setImmediate(resolve));
    closeByClient();
    upstream.destroy(new Error('aborted'));
    await expect(piped).rejects.toMatchObject({ code: 499 });
    expect(written).toEqual({});
  });
});
