import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig, type User } from '@kubernetes/client-node';
import type { Pool } from 'undici';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KubeClient } from './client.js';
import { jsonBodyHeaders, kubeRequestHeaders } from './testing/request-headers.js';
import { selfSignedCertificate } from './testing/self-signed.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const pem = selfSignedCertificate(); // made once for the file

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** An HTTP/1.1 "API server" (TLS with `tls`), recording the connections it accepted and the requests' headers. */
async function server(handler: Handler, options: { tls?: boolean } = {}) {
  const connections: Socket[] = [];
  const requests: IncomingMessage['headers'][] = [];
  const http = options.tls ? createTlsServer(pem) : createServer();
  http.on(options.tls ? 'secureConnection' : 'connection', (socket: Socket) => connections.push(socket));
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    requests.push(req.headers);
    handler(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  cleanups.push(() => {
    http.closeAllConnections();
    http.close();
  });
  return { url: `${options.tls ? 'https' : 'http'}://127.0.0.1:${port}`, connections, requests };
}

function kubeConfigOptions(
  url: string,
  user: User,
  caSuffix: string,
): Parameters<KubeConfig['loadFromOptions']>[0] {
  const tls = url.startsWith('https:')
    ? { caData: Buffer.from(pem.cert + caSuffix).toString('base64') }
    : { skipTLSVerify: true };
  return {
    clusters: [{ name: 'c', server: url, ...tls }],
    users: [user],
    contexts: [{ name: 'x', cluster: 'c', user: user.name }],
    currentContext: 'x',
  };
}

function kubeConfigFor(url: string, user: User = { name: 'u', token: 'secret' }): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions(kubeConfigOptions(url, user, ''));
  return kubeConfig;
}

function clientFor(kubeConfig: KubeConfig, credentialsTtlMs = 10_000): KubeClient {
  const client = new KubeClient(kubeConfig, { qps: 1000, burst: 1000, credentialsTtlMs });
  cleanups.push(() => client.close());
  return client;
}

/**
 * undici hands a connection back to its pool a moment after the body ended; a request sent at once gets another.
 * Waits until the client's pool counts every connection of it free again.
 */
function connectionFreed(client: KubeClient): Promise<void> {
  const transport = (client as unknown as { transport: { live?: { pool: Pool } } }).transport;
  return vi.waitFor(() => {
    const stats = transport.live!.pool.stats;
    expect(stats.connected).toBeGreaterThan(0);
    expect(stats.free).toBe(stats.connected);
  });
}

async function text(response: AsyncIterable<unknown>): Promise<string> {
  let body = '';
  for await (const chunk of response) body += String(chunk);
  return body;
}

describe('KubeClient over HTTP/1.1 keep-alive connections', () => {
  it('sends the credentials, headers, query and body, and hands back status, headers and body', async () => {
    const api = await server((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        res.writeHead(req.method === 'POST' ? 201 : 200, [
          ['Content-Type', 'application/json'],
          ['Audit-Id', 'a1'],
          ['Warning', '299 - "one"'],
          ['Warning', '299 - "two"'],
        ]);
        res.end(JSON.stringify({ path: req.url, body: body || undefined }));
      });
    });
    const client = clientFor(kubeConfigFor(api.url));
    await expect(
      client.request({ path: '/api/v1/pods', query: { limit: 5, labelSelector: 'a=b', x: undefined } }),
    ).resolves.toEqual({ path: '/api/v1/pods?limit=5&labelSelector=a%3Db' });
    await connectionFreed(client);
    const response = await client.forward({ method: 'POST', path: '/api/v1/x', body: { k: 'ü' } });
    expect(response.statusCode).toBe(201);
    expect(response.headers).toMatchObject({
      'content-type': 'application/json',
      'audit-id': 'a1',
      warning: ['299 - "one"', '299 - "two"'],
    });
    expect(JSON.parse(await text(response))).toEqual({ path: '/api/v1/x', body: '{"k":"ü"}' });
    expect(api.requests[0]).toMatchObject(kubeRequestHeaders('secret'));
    expect(api.requests[1]).toMatchObject(jsonBodyHeaders('{"k":"ü"}'));
    expect(api.connections).toHaveLength(1); // one kept-alive connection, reused
  });

  it('keeps the connection after a DELETE with a body (DeleteOptions)', async () => {
    const bodies: string[] = [];
    const api = await server((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk));
      req.on('end', () => {
        bodies.push(body);
        res.end('{}');
      });
    });
    const client = clientFor(kubeConfigFor(api.url));
    for (const name of ['a', 'b', 'c']) {
      await client.request({
        method: 'DELETE',
        path: `/api/v1/namespaces/d/pods/${name}`,
        body: { preconditions: { uid: name } },
      });
      await connectionFreed(client);
    }
    expect(bodies).toEqual(['a', 'b', 'c'].map((uid) => JSON.stringify({ preconditions: { uid } })));
    expect(api.connections).toHaveLength(1);
  });

  it("sends a kubeconfig user's username and password as basic auth", async () => {
    const api = await server((_req, res) => res.end('{}'));
    const client = clientFor(kubeConfigFor(api.url, { name: 'b', username: 'ada', password: 'pw' }));
    await client.request({ path: '/version' });
    expect(api.requests[0]?.authorization).toBe(`Basic ${Buffer.from('ada:pw').toString('base64')}`);
  });

  it('streams an answer as it arrives, and closes the connection when the caller aborts', async () => {
    let closed: () => void = () => {};
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve));
    const api = await server((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      let n = 0;
      const tick = setInterval(() => res.write(`{"type":"BOOKMARK","n":${n++}}\n`), 20);
      res.on('close', () => {
        clearInterval(tick);
        closed();
      });
    });
    const client = clientFor(kubeConfigFor(api.url));
    const abort = new AbortController();
    const response = await client.stream({ path: '/watch', signal: abort.signal, timeoutMs: null });
    const lines: string[] = [];
    const reading = (async () => {
      for await (const chunk of response) {
        lines.push(String(chunk));
        if (lines.length === 5) abort.abort(new Error('the informer stopped'));
      }
    })();
    await expect(reading).rejects.toThrow('the informer stopped');
    expect(lines.slice(0, 2)).toEqual(['{"type":"BOOKMARK","n":0}\n', '{"type":"BOOKMARK","n":1}\n']);
    await serverSawClose;
  });

  it('fails a body cut short by the server, never ends it as if whole', async () => {
    const api = await server((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"kind":"PodList","items":[');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const client = clientFor(kubeConfigFor(api.url));
    await expect(client.request({ path: '/api/v1/pods' })).rejects.toThrow();
    const response = await client.stream({ path: '/watch' });
    await expect(text(response)).rejects.toThrow();
  });

  it('keeps its TLS connection while the same material is re-applied, and opens a new one once it rotates', async () => {
    let holdWatch: () => void = () => {};
    const api = await server(
      (req, res) => {
        if (req.url === '/watch') {
          res.writeHead(200);
          res.write('{"type":"ADDED"}\n');
          holdWatch = () => res.end();
        } else res.end('{}');
      },
      { tls: true },
    );
    const kubeConfig = kubeConfigFor(api.url);
    const client = clientFor(kubeConfig, 0); // the kubeconfig is applied afresh for every request
    await client.request({ path: '/version' });
    await connectionFreed(client);
    await client.request({ path: '/version' });
    expect(api.connections).toHaveLength(1);

    const watch = await client.stream({ path: '/watch' }); // holds a second connection
    const watched = text(watch);
    kubeConfig.loadFromOptions(kubeConfigOptions(api.url, { name: 'u', token: 'secret' }, '\n'));
    await client.request({ path: '/version' }); // rotated CA bundle: a new pool
    expect(api.connections).toHaveLength(3);
    holdWatch();
    await expect(watched).resolves.toBe('{"type":"ADDED"}\n'); // the old pool let its watch finish
  });
});
