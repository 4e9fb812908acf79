import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callGateWebhook, GATE_ANSWER_CHARS, type GateContext } from './gate-webhook.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
const handlers = new Map<string, Handler>();
const seen: { path: string; headers: IncomingMessage['headers']; body: string }[] = [];
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ path: req.url!, headers: req.headers, body });
      handlers.get(req.url!)?.(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  handlers.set('/ok', (_req, res) => res.writeHead(204).end());
  handlers.set('/no', (_req, res) => res.writeHead(503).end('  load test failed: p99 900 ms  '));
  handlers.set('/long', (_req, res) => res.writeHead(400).end('x'.repeat(10_000)));
  handlers.set('/hang', () => {}); // never answers
  handlers.set('/moved', (_req, res) => res.writeHead(302, { location: `${base}/ok` }).end());
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const CONTEXT: GateContext = {
  gate: 'r2-1-gate',
  nginx: { namespace: 'shop', name: 'web', uid: 'u1' },
  strategy: 'Canary',
  revision: 'r2',
  stableRevision: 'r1',
  step: 1,
  weight: 20,
};
const AT = new Date('2026-11-28T10:00:00Z');
const call = (path: string, more: { timeoutSeconds?: number; headers?: Record<string, string> } = {}) =>
  callGateWebhook({ url: `${base}${path}`, ...more }, CONTEXT, { now: () => AT });

describe('callGateWebhook', () => {
  it('POSTs the rollout as JSON with the headers given, and passes on a 2xx', async () => {
    expect(await call('/ok', { headers: { authorization: 'Bearer t' } })).toEqual({
      phase: 'Passed',
      at: AT.toISOString(),
      code: 204,
    });
    const request = seen.at(-1)!;
    expect(request.headers).toMatchObject({ authorization: 'Bearer t', 'content-type': 'application/json' });
    expect(JSON.parse(request.body)).toEqual(CONTEXT);
  });

  it('fails on any other answer with its text, capped', async () => {
    expect(await call('/no')).toMatchObject({
      phase: 'Failed',
      code: 503,
      message: 'HTTP 503: load test failed: p99 900 ms',
    });
    const long = await call('/long');
    expect(long.message).toBe(`HTTP 400: ${'x'.repeat(GATE_ANSWER_CHARS)}…`);
    expect(await call('/moved')).toMatchObject({ phase: 'Failed', code: 302 });
  });

  it('fails a webhook that hangs once its time is out, and one that cannot be reached', async () => {
    expect(await call('/hang', { timeoutSeconds: 1 })).toEqual({
      phase: 'Failed',
      at: AT.toISOString(),
      message: 'no answer within 1 s',
    });
    const gone = createServer();
    await new Promise<void>((resolve) => gone.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(gone.address() as AddressInfo).port}/x`;
    await new Promise((resolve) => gone.close(resolve));
    const closed = await callGateWebhook({ url }, CONTEXT);
    expect(closed.phase).toBe('Failed');
    expect(closed.message).toMatch(new RegExp(`^could not call ${url}: .*ECONNREFUSED`));
  });

  it('gives way to the reconcile’s own abort', async () => {
    const stop = new AbortController();
    const pending = callGateWebhook({ url: `${base}/hang` }, CONTEXT, { signal: stop.signal });
    stop.abort(new Error('term'));
    await expect(pending).rejects.toThrow();
  });
});
