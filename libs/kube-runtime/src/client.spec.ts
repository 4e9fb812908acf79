import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { KubeClient, requestUrl, type KubeClientOptions } from './client.js';
import { tracedRequester } from './client-tracing.js';
import { FakeClock } from './testing/fake-clock.js';

/** A local HTTP "API server" whose handler the test writes; requests it never answers just hang. */
async function server(
  handler: Parameters<typeof createServer>[1],
): Promise<{ url: string; close: () => void }> {
  const http: Server = createServer(handler);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      http.closeAllConnections();
      http.close();
    },
  };
}

function clientFor(url: string, requestTimeoutMs: number, options: KubeClientOptions = {}): KubeClient {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return new KubeClient(kubeConfig, { qps: 1000, burst: 1000, requestTimeoutMs, ...options });
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('KubeClient request timeouts', () => {
  it('aborts a request whose answer never comes, or stalls halfway through its body', async () => {
    const stalled = await server((req, res) => {
      if (req.url?.startsWith('/half')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.write('{"items": [');
      }
    });
    cleanups.push(stalled.close);
    const client = clientFor(stalled.url, 200);
    cleanups.push(() => client.close());
    // Each cut by the client's own 200 ms bound (named in the error), not by some other, later timeout.
    const timedOut = { name: 'TimeoutError', message: expect.stringContaining('within 200 ms') };
    await expect(client.request({ path: '/never' })).rejects.toMatchObject(timedOut);
    await expect(client.request({ path: '/half' })).rejects.toMatchObject(timedOut);
  });

  it("bounds only the wait for a stream's headers, never the stream itself", async () => {
    const watch = await server((req, res) => {
      if (req.url?.startsWith('/silent')) return;
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.flushHeaders();
      setTimeout(() => res.end('{"type":"BOOKMARK"}\n'), 500);
    });
    cleanups.push(watch.close);
    const client = clientFor(watch.url, 200);
    cleanups.push(() => client.close());
    await expect(client.stream({ path: '/silent' })).rejects.toMatchObject({ name: 'TimeoutError' });
    const response = await client.stream({ path: '/watch' });
    let body = '';
    for await (const chunk of response) body += chunk;
    expect(body).toBe('{"type":"BOOKMARK"}\n'); // arrived after 500 ms, past the 200 ms timeout
  });

  it('lets a request opt out of the timeout', async () => {
    const slow = await server((_req, res) => setTimeout(() => res.end('{}'), 400));
    cleanups.push(slow.close);
    const client = clientFor(slow.url, 100);
    cleanups.push(() => client.close());
    await expect(client.request({ path: '/slow', timeoutMs: null })).resolves.toEqual({});
  });
});

describe('KubeClient metrics', () => {
  it('reports every answer by code, method and host, no answer as <error>, and the duration of each request', async () => {
    const api = await server((req, res) => {
      if (req.url?.startsWith('/never')) return;
      if (req.url?.startsWith('/reset')) return void req.socket.destroy();
      res.writeHead(req.method === 'POST' ? 409 : 200, { 'Content-Type': 'application/json' });
      res.end(req.method === 'POST' ? '{"kind":"Status","code":409,"reason":"AlreadyExists"}' : '{}');
    });
    cleanups.push(api.close);
    const results: string[] = [];
    const latencies: string[] = [];
    const client = clientFor(api.url, 200, {
      metrics: {
        requestResult: (code, method, host) => void results.push(`${code} ${method} ${host}`),
        requestLatency: (verb, host, seconds) => {
          expect(seconds).toBeGreaterThanOrEqual(0);
          latencies.push(`${verb} ${host}`);
        },
      },
    });
    cleanups.push(() => client.close());
    const host = new URL(api.url).host;
    await client.request({ path: '/ok' });
    await expect(client.request({ method: 'POST', path: '/taken', body: {} })).rejects.toMatchObject({
      code: 409,
    });
    await expect(client.request({ path: '/reset' })).rejects.toThrow();
    await expect(client.request({ path: '/never' })).rejects.toMatchObject({ name: 'TimeoutError' });
    const watch = await client.stream({ path: '/watch' });
    watch.resume();
    expect(results).toEqual([
      `200 GET ${host}`,
      `409 POST ${host}`,
      `<error> GET ${host}`,
      `<error> GET ${host}`,
      `200 GET ${host}`,
    ]);
    expect(latencies).toEqual([`GET ${host}`, `POST ${host}`, `GET ${host}`, `GET ${host}`]);
  });
});

describe('KubeClient tracing', () => {
  it("traces each request with its hook's headers: a request until its body is read, a stream until its headers", async () => {
    const seen: string[] = [];
    const api = await server((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.traceparent}`);
      if (req.url?.startsWith('/reset')) return void req.socket.destroy();
      res.writeHead(req.url?.startsWith('/gone') ? 404 : 200, { 'Content-Type': 'application/json' });
      if (req.url?.startsWith('/watch')) return void res.flushHeaders();
      res.end('{}');
    });
    cleanups.push(api.close);
    const traces: string[] = [];
    let count = 0;
    const client = clientFor(api.url, 500, {
      tracing: {
        requestStarted: ({ method, url, streaming, parent }) => {
          const id = ++count;
          traces.push(
            `start ${id} ${method} ${url.pathname}${url.search} ${streaming ? 'stream' : 'request'} in ${String(parent)}`,
          );
          return {
            headers: { traceparent: `trace-${id}` },
            ended: (outcome) =>
              void traces.push(`end ${id} ${'statusCode' in outcome ? outcome.statusCode : 'error'}`),
          };
        },
      },
    });
    cleanups.push(() => client.close());
    await client.request({ path: '/ok', query: { labelSelector: 'a=b' } });
    await expect(tracedRequester(client, 'op-1').request({ path: '/gone' })).rejects.toMatchObject({
      code: 404,
    });
    await expect(client.request({ method: 'DELETE', path: '/reset' })).rejects.toThrow();
    const watch = await client.stream({ path: '/watch' });
    expect(traces).toEqual([
      'start 1 GET /ok?labelSelector=a%3Db request in undefined',
      'end 1 200',
      'start 2 GET /gone request in op-1', // the trace it was made in, handed to the hook
      'end 2 404',
      'start 3 DELETE /reset request in undefined',
      'end 3 error',
      'start 4 GET /watch stream in undefined',
      'end 4 200', // ended with the headers, while the stream stays open
    ]);
    watch.destroy();
    expect(seen).toEqual([
      'GET /ok?labelSelector=a%3Db trace-1',
      'GET /gone trace-2',
      'DELETE /reset trace-3',
      'GET /watch trace-4',
    ]);
  });
});

describe('KubeClient credentials', () => {
  it('applies the kubeconfig once per TTL, and afresh after a 401', async () => {
    let answer = 200;
    const api = await server((_req, res) => {
      res.writeHead(answer, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
    cleanups.push(api.close);
    const clock = new FakeClock();
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: api.url, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'secret' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const applied = vi.spyOn(kubeConfig, 'applyToHTTPSOptions');
    const client = new KubeClient(kubeConfig, { qps: 1000, burst: 1000, clock, credentialsTtlMs: 10_000 });
    cleanups.push(() => client.close());

    for (let i = 0; i < 5; i++) await client.request({ path: '/version' });
    expect(applied).toHaveBeenCalledTimes(1);
    clock.advance(10_000);
    await client.request({ path: '/version' });
    expect(applied).toHaveBeenCalledTimes(2);

    answer = 401;
    await expect(client.request({ path: '/version' })).rejects.toMatchObject({ code: 401 });
    answer = 200;
    await client.request({ path: '/version' });
    expect(applied).toHaveBeenCalledTimes(3);
  });
});

describe('KubeClient fences', () => {
  it('never sends a request whose fence fired while it waited for the QPS limit, nor one fenced before', async () => {
    const seen: string[] = [];
    const api = await server((req, res) => {
      seen.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
    cleanups.push(api.close);
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: api.url, skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const clock = new FakeClock();
    const client = new KubeClient(kubeConfig, { qps: 1, burst: 1, clock });
    cleanups.push(() => client.close());
    const fence = new AbortController();
    await client.request({ path: '/first', fence: fence.signal });
    const waiting = client.request({ path: '/second', fence: fence.signal }); // waits a second for a token
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1)); // it waits for the QPS limit
    fence.abort(new Error('the term ended'));
    await expect(waiting).rejects.toThrow('the term ended');
    await expect(client.request({ path: '/third', fence: fence.signal })).rejects.toThrow('the term ended');
    clock.advance(1000); // the moment '/second' would have left
    expect(seen).toEqual(['/first']);
    // A later request without the fence goes out and is answered: had '/second' left, the server saw it first.
    const later = client.request({ path: '/fourth' });
    await vi.waitFor(() => expect(clock.pendingTimers()).toBe(1));
    clock.advance(1000);
    await later;
    expect(seen).toEqual(['/first', '/fourth']);
  });
});

describe('KubeClient impersonation', () => {
  it('sends Impersonate-User and one Impersonate-Group line per group, and none without `impersonate`', async () => {
    const seen: string[][] = [];
    const api = await server((req, res) => {
      const lines: string[] = [];
      for (let i = 0; i < req.rawHeaders.length; i += 2)
        if (req.rawHeaders[i]!.toLowerCase().startsWith('impersonate-'))
          lines.push(`${req.rawHeaders[i]!.toLowerCase()}: ${req.rawHeaders[i + 1]}`);
      seen.push(lines);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
    cleanups.push(api.close);
    const client = clientFor(api.url, 2000);
    cleanups.push(() => client.close());
    await client.request({
      method: 'PATCH',
      path: '/a',
      body: {},
      impersonate: { user: 'alice', groups: ['team-a', 'system:authenticated'] },
    });
    await client.request({ path: '/b', impersonate: { user: 'bob', groups: [] } });
    await client.request({ path: '/c' });
    expect(seen).toEqual([
      ['impersonate-user: alice', 'impersonate-group: team-a', 'impersonate-group: system:authenticated'],
      ['impersonate-user: bob'],
      [],
    ]);
  });
});

describe('requestUrl', () => {
  it("sets each defined query parameter over the path's own, encoded as URLSearchParams does", () => {
    const url = requestUrl('https://127.0.0.1:6443', '/api/v1/pods?limit=5&watch=1', {
      limit: 500,
      labelSelector: 'app in (web, api)',
      continue: undefined,
      allowWatchBookmarks: true,
    });
    expect(url.href).toBe(
      'https://127.0.0.1:6443/api/v1/pods?limit=500&watch=1&labelSelector=app+in+%28web%2C+api%29&allowWatchBookmarks=true',
    );
    expect(requestUrl('https://127.0.0.1:6443', '/api/v1/pods', { continue: undefined }).href).toBe(
      'https://127.0.0.1:6443/api/v1/pods',
    );
  });
});
