import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { gateAnswer, gateRequests, type GateRequest, type GateSettings } from './request-gate.js';

const local: GateSettings = { hosts: { kind: 'loopback' }, plainHttp: 'allow-loopback', tlsConfigured: true };
const cluster: GateSettings = { hosts: { kind: 'any' }, plainHttp: 'redirect', tlsConfigured: true };
const request: GateRequest = {
  method: 'GET',
  url: '/apis',
  host: '127.0.0.1:3000',
  encrypted: false,
  remoteAddress: '127.0.0.1',
};

describe('gateAnswer', () => {
  it('lets a developer on this machine through over plain HTTP', () => {
    expect(gateAnswer(request, local)).toBeUndefined();
    expect(
      gateAnswer({ ...request, host: 'localhost:3000', remoteAddress: '::ffff:127.0.0.1' }, local),
    ).toBeUndefined();
  });

  it('refuses a name that is not this server with 421, before any redirect', () => {
    expect(gateAnswer({ ...request, host: 'rebind.attacker.example:3000' }, local)).toEqual({
      code: 421,
      message:
        'this server does not answer for the host "rebind.attacker.example:3000": add it to ALLOWED_HOSTS if it is ' +
        'one of its names',
    });
    const listed = { ...cluster, hosts: { kind: 'listed', patterns: ['cp.example.com'] } } as const;
    expect(gateAnswer({ ...request, host: 'evil.example', remoteAddress: '10.0.0.9' }, listed)).toMatchObject(
      {
        code: 421,
      },
    );
  });

  it('redirects reads and refuses writes arriving over plain HTTP from elsewhere', () => {
    const remote = { ...request, host: 'cp.example.com', remoteAddress: '10.0.0.9' };
    expect(gateAnswer(remote, cluster)).toEqual({ code: 308, location: 'https://cp.example.com/apis' });
    expect(gateAnswer({ ...remote, method: 'POST' }, cluster)).toEqual({
      code: 400,
      message: 'this server accepts POST only over TLS: use https://cp.example.com/apis',
    });
    expect(gateAnswer({ ...remote, encrypted: true, method: 'POST' }, cluster)).toBeUndefined();
    expect(gateAnswer({ ...remote, url: '/healthz' }, cluster)).toBeUndefined();
  });

  it('never redirects to a Host that is not a plain host name', () => {
    const odd = { ...request, host: 'evil.example/x?', remoteAddress: '10.0.0.9' };
    expect(gateAnswer(odd, cluster)).toEqual({
      code: 400,
      message: 'this server accepts GET only over TLS: use https://',
    });
  });
});

describe('gateRequests', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** A server whose request and upgrade listeners answer "app"; gated with `settings`. */
  async function gated(settings: GateSettings): Promise<number> {
    server = createServer((_request, response) => response.end('app'));
    server.on('upgrade', (_request, socket) => socket.end('HTTP/1.1 101 Switching Protocols\r\n\r\n'));
    gateRequests(server, settings);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  }

  /** One raw request; resolves with everything answered until the connection closes. */
  function send(port: number, head: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const connection = head.includes('\r\nUpgrade:') ? 'Upgrade' : 'close';
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(`${head}\r\nConnection: ${connection}\r\n\r\n`),
      );
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
  }

  it('answers refused requests and upgrades with a Status, and passes the rest on', async () => {
    const port = await gated(local);
    expect(await send(port, 'GET / HTTP/1.1\r\nHost: localhost')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*app$/);
    const refused = await send(port, 'GET / HTTP/1.1\r\nHost: evil.example');
    expect(refused).toMatch(/^HTTP\/1\.1 421 Misdirected Request/);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 421,
    });

    const upgrade = 'GET /socket.io/?EIO=4&transport=websocket HTTP/1.1\r\nUpgrade: websocket';
    expect(await send(port, `${upgrade}\r\nHost: 127.0.0.1`)).toMatch(/^HTTP\/1\.1 101 /);
    const refusedUpgrade = await send(port, `${upgrade}\r\nHost: evil.example`);
    expect(refusedUpgrade).toMatch(/^HTTP\/1\.1 421 Misdirected Request[\s\S]*"kind":"Status"/);
  });

  it('redirects a plain GET with 308 and no body, and answers HEAD without one', async () => {
    const port = await gated({ ...cluster, plainHttp: 'redirect' });
    const redirect = await send(port, 'GET /x?y=1 HTTP/1.1\r\nHost: 127.0.0.1:9');
    expect(redirect).toMatch(/^HTTP\/1\.1 308 Permanent Redirect\r\n/);
    expect(redirect).toContain('\r\nLocation: https://127.0.0.1:9/x?y=1\r\n');
    expect(redirect.endsWith('\r\n\r\n')).toBe(true);
    const head = await send(port, 'HEAD /apis HTTP/1.1\r\nHost: 127.0.0.1');
    expect(head).toMatch(/^HTTP\/1\.1 308 /);
    const post = await send(port, 'POST /apis HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0');
    expect(post).toMatch(/^HTTP\/1\.1 400 Bad Request[\s\S]*only over TLS/);
    expect(await send(port, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1')).toMatch(/200 OK[\s\S]*app$/);
  });
});
