import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotificationSender, type Delivery } from './notification-sender.js';
import { SIGNATURE_HEADER, signature, TIMESTAMP_HEADER } from './signature.js';

let server: Server;
let base = '';
const hits = new Map<string, number>();
const signatures: boolean[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (path === '/ok') {
        const timestamp = Number(request.headers[TIMESTAMP_HEADER]);
        signatures.push(request.headers[SIGNATURE_HEADER] === signature('key', timestamp, body));
        response.writeHead(204).end();
      } else if (path === '/fail') response.writeHead(500).end();
      else if (path === '/loop') response.writeHead(302, { location: '/loop' }).end();
      else if (path === '/slow') setTimeout(() => response.writeHead(200).end(), 2000);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const delivery = (path: string, over: Partial<Delivery> = {}): Delivery => ({
  id: path,
  receiver: 'r',
  event: 'rollout-started',
  namespace: 'shop',
  nginx: 'web',
  url: `${base}${path}`,
  body: '{"a":1}',
  timeoutMs: 300,
  attempts: 3,
  ...over,
});

describe('NotificationSender', () => {
  it('signs and delivers; retries a 500, a redirect loop, a slow and a dead receiver, then gives up', async () => {
    const outcomes = new Map<string, string>();
    const sender = new NotificationSender({
      concurrency: 2,
      queueLimit: 100,
      retryBaseMs: 10,
      retryMaxMs: 50,
      onSent: (sent, attempts) => outcomes.set(sent.id, `sent after ${attempts}`),
      onGivenUp: (lost, attempts, reason) => outcomes.set(lost.id, `given up after ${attempts}: ${reason}`),
    });
    for (const path of ['/fail', '/loop', '/slow']) sender.send(delivery(path));
    sender.send(delivery('/dead', { url: 'http://127.0.0.1:9/dead' }));
    sender.send(delivery('/ok', { secret: 'key' }));
    expect(outcomes.size).toBe(0); // send returned before any delivery ended: it never waits
    await sender.stop(10_000);
    expect(Object.fromEntries(outcomes)).toEqual({
      '/ok': 'sent after 1',
      '/fail': 'given up after 3: answered 500',
      '/loop': 'given up after 3: redirect 302 to /loop not followed',
      '/slow': 'given up after 3: no answer within 0.3 s',
      '/dead': expect.stringMatching(/^given up after 3: unreachable: /),
    });
    expect(signatures).toEqual([true]);
    expect(hits.get('/loop')).toBe(3);
  });

  it('gives up at once what does not fit its queue', () => {
    const lost: string[] = [];
    const sender = new NotificationSender({
      concurrency: 0,
      queueLimit: 1,
      retryBaseMs: 10,
      retryMaxMs: 50,
      onSent: () => undefined,
      onGivenUp: (delivery, _attempts, reason) => lost.push(`${delivery.id}: ${reason}`),
    });
    sender.send(delivery('/a'));
    sender.send(delivery('/b'));
    expect(lost).toEqual(['/b: the notification queue is full (1)']);
  });
});
