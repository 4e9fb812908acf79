import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect as connectTcp, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectHttp2, constants as httpConstants, type ClientHttp2Session } from 'node:http2';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { applyConnectionLimits, type ConnectionLimits } from './connection-limits.js';
import { serveTlsOnSamePort } from './tls-on-same-port.js';

/**
 * Short bounds so the test waits for them. The first-byte bound is this module's own timer (global setTimeout, faked
 * below); the others are Node's own (tls.Server's handshakeTimeout, the HTTP server's headers bound), which no fake
 * clock reaches: for those the tests wait for the close itself, and check only that it did not come early (a timer
 * never fires before its time), not how late it came.
 */
const LIMITS: ConnectionLimits = {
  firstByteMs: 300,
  tlsHandshakeMs: 300,
  headersMs: 400,
  requestMs: 600,
  checkIntervalMs: 100,
};

/** A throwaway self-signed certificate for 127.0.0.1. */
function selfSigned(): { cert: Buffer; key: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'ngx-tls-'));
  execFileSync(
    'openssl',
    [
      ...[
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
      ],
      ...['-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      ...['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
    ],
    { stdio: 'ignore' },
  );
  return { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) };
}

let endlessClosed = false;
let endlessWritten = 0;
/** Set when the /endless handler's write was refused (back-pressure) and it waits for 'drain'. */
let endlessHeld = false;

let server: Server;
let port: number;
let certificate: { cert: Buffer; key: Buffer };
const uncaught: unknown[] = [];
const recordUncaught = (error: unknown) => uncaught.push(error);
const clients: Socket[] = [];
const accepted: { socket: Socket; closed: Promise<void> }[] = [];

beforeAll(async () => {
  process.on('uncaughtException', recordUncaught);
  certificate = selfSigned();
  server = createServer((request, response) => {
    if (request.url === '/stream') {
      // A watch-like answer that lasts longer than every bound.
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      let sent = 0;
      const timer = setInterval(() => {
        response.write(`tick ${++sent}\n`);
        if (sent === 6) {
          clearInterval(timer);
          response.end();
        }
      }, 250);
      return;
    }
    if (request.url === '/echo') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () =>
        response.end(
          `${request.method} ${body} from ${request.socket.remoteAddress} ${request.headers.host}`,
        ),
      );
      return;
    }
    if (request.url === '/endless') {
      // Writes as fast as the connection takes it (at most 64 MiB), waiting for 'drain' whenever told to.
      response.writeHead(200);
      endlessWritten = 0;
      endlessHeld = false;
      const chunk = Buffer.alloc(16 * 1024, 'x');
      const pump = () => {
        endlessHeld = false;
        while (!response.destroyed && endlessWritten < 64 * 1024 * 1024) {
          endlessWritten += chunk.length;
          if (!response.write(chunk)) {
            endlessHeld = true;
            return void response.once('drain', pump);
          }
        }
      };
      pump();
      response.on('close', () => (endlessClosed = true));
      return;
    }
    const overTls = (request.socket as { encrypted?: boolean }).encrypted === true;
    response.end(`${overTls ? 'tls' : 'plain'} ${request.url}`);
  });
  applyConnectionLimits(server, LIMITS);
  serveTlsOnSamePort(server, certificate, LIMITS);
  // The server's end of every connection, as it accepted it (before any TLS), with the promise of its close.
  server.on('connection', (socket: Socket) =>
    accepted.push({ socket, closed: new Promise((resolve) => socket.once('close', () => resolve())) }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(() => {
  vi.useRealTimers();
  for (const client of clients.splice(0)) client.destroy();
});

afterAll(async () => {
  process.off('uncaughtException', recordUncaught);
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** A raw TCP client whose errors (the server resetting it) are expected. */
function tcp(): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1', () => resolve(socket));
    socket.on('error', () => {});
    socket.once('error', reject);
    clients.push(socket);
  });
}

/**
 * The server's end of a client's TCP connection, once the server has accepted it. (Event-driven, not polled: with
 * fake timers vi.waitFor would move the clock.)
 */
function serverEnd(client: Socket): Promise<{ socket: Socket; closed: Promise<void> }> {
  const find = () => accepted.find(({ socket }) => socket.remotePort === client.localPort);
  return new Promise((resolve) => {
    const check = () => {
      const end = find();
      if (!end) return;
      server.off('connection', check);
      resolve(end);
    };
    server.on('connection', check);
    check();
  });
}

/** Resolves once the server has read at least `bytes` bytes of the connection. */
async function serverRead(end: { socket: Socket }, bytes: number): Promise<void> {
  await vi.waitFor(() => expect(end.socket.bytesRead).toBeGreaterThanOrEqual(bytes), { interval: 1 });
}

/** A TLS client over `socket` (a fresh TCP connection by default), once its handshake is done. */
function tls(socket?: Socket): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const secure = connectTls(
      { ...(socket ? { socket } : { port }), host: '127.0.0.1', ca: certificate.cert },
      () => resolve(secure),
    );
    secure.on('error', () => {});
    secure.once('error', reject);
    clients.push(secure);
  });
}

/** Everything the server sends until it closes the connection, and how long after `since` it closed. */
function untilClosed(socket: Socket, since = performance.now()): Promise<{ text: string; afterMs: number }> {
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('close', () => resolve({ text, afterMs: performance.now() - since }));
  });
}

/** One complete request on its own connection; resolves with the raw answer. */
async function request(over: 'plain' | 'tls', path = '/'): Promise<string> {
  const socket = over === 'tls' ? await tls() : await tcp();
  const closed = untilClosed(socket);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  return (await closed).text;
}

async function expectServing() {
  expect(await request('plain', '/after')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*plain \/after$/);
  expect(await request('tls', '/after')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*tls \/after$/);
}

describe('TLS and plain HTTP on one port', () => {
  it('answers plain HTTP and TLS', async () => {
    expect(await request('plain', '/x')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*plain \/x$/);
    expect(await request('tls', '/y')).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*tls \/y$/);
  });

  it('survives a reset before the first byte: no uncaught exception, and it keeps answering', async () => {
    const ends = [];
    for (let i = 0; i < 5; i++) {
      const socket = await tcp();
      ends.push(await serverEnd(socket));
      socket.resetAndDestroy();
    }
    // The server has handled each reset (an unhandled one would have been thrown before its close).
    await Promise.all(ends.map((end) => end.closed));
    expect(uncaught).toEqual([]);
    await expectServing();
  });

  it('survives a reset in the middle of a TLS handshake and right after it', async () => {
    const midHandshake = await tcp();
    const midHandshakeEnd = await serverEnd(midHandshake);
    midHandshake.write(Buffer.from([0x16, 0x03, 0x01, 0x00]));
    await serverRead(midHandshakeEnd, 4);
    midHandshake.resetAndDestroy();

    const raw = await tcp();
    const rawEnd = await serverEnd(raw);
    await tls(raw);
    raw.resetAndDestroy();

    const plainMidRequest = await tcp();
    const plainEnd = await serverEnd(plainMidRequest);
    plainMidRequest.write('GET / HT');
    await serverRead(plainEnd, 8);
    plainMidRequest.resetAndDestroy();

    await Promise.all([midHandshakeEnd.closed, rawEnd.closed, plainEnd.closed]);
    expect(uncaught).toEqual([]);
    await expectServing();
  });

  it('closes a connection that sends nothing when the first-byte bound runs out, not before', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const socket = await tcp();
    const end = await serverEnd(socket);
    const closed = untilClosed(socket);
    vi.advanceTimersByTime(LIMITS.firstByteMs - 1);
    expect(end.socket.destroyed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(end.socket.destroyed).toBe(true);
    expect((await closed).text).toBe('');
  });

  it('closes at once a connection that ends its side without sending anything', async () => {
    // The clock never moves: the close comes from the end of the client's side, not from the first-byte bound.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const socket = await tcp();
    const closed = untilClosed(socket);
    socket.end();
    expect((await closed).text).toBe('');
  });

  it('answers a request sent together with the end of the client side', async () => {
    const socket = await tcp();
    const closed = untilClosed(socket);
    socket.end('GET /half-closed HTTP/1.0\r\n\r\n');
    expect((await closed).text).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*plain \/half-closed$/);
  });

  it('closes a TLS connection whose handshake does not finish within its bound', async () => {
    const socket = await tcp();
    const since = performance.now();
    const closed = untilClosed(socket, since);
    socket.write(Buffer.from([0x16, 0x03, 0x01]));
    const { text, afterMs } = await closed;
    expect(text).toBe('');
    expect(afterMs).toBeGreaterThanOrEqual(LIMITS.tlsHandshakeMs - 20);
  });

  it.each(['plain', 'tls'] as const)(
    'answers 408 and closes a %s request whose headers do not complete within the headers bound',
    async (over) => {
      const raw = await tcp();
      const end = await serverEnd(raw);
      const socket = over === 'tls' ? await tls(raw) : raw;
      const since = performance.now();
      const closed = untilClosed(socket, since);
      const start = end.socket.bytesRead;
      const firstPart = 'GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n';
      socket.write(firstPart);
      // The headers trickle in: the second part is sent once the server has read the first.
      await serverRead(end, start + firstPart.length);
      socket.write('X-Trickle: 1\r\n');
      const { text, afterMs } = await closed;
      expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
      expect(afterMs).toBeGreaterThanOrEqual(LIMITS.headersMs - 20);
    },
  );

  it('closes a plain request line that never completes', async () => {
    const socket = await tcp();
    const closed = untilClosed(socket);
    socket.write('GET /never-ending-request-line');
    const { text, afterMs } = await closed;
    expect(text).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
    expect(afterMs).toBeGreaterThanOrEqual(LIMITS.headersMs - 20);
  });

  it.each(['plain', 'tls'] as const)(
    'keeps a %s answer streaming for longer than every bound once the request is in',
    async (over) => {
      const text = await request(over, '/stream');
      expect(text).toMatch(/^HTTP\/1\.1 200 OK/);
      expect(text).toContain('tick 6');
    },
  );
});

describe('HTTP/2 over TLS (ALPN h2)', () => {
  let session: ClientHttp2Session;
  beforeAll(async () => {
    session = connectHttp2(`https://127.0.0.1:${port}`, { ca: certificate.cert });
    await new Promise<void>((resolve, reject) =>
      session.once('connect', () => resolve()).once('error', reject),
    );
  });
  afterAll(() => session.close());

  function exchange(headers: Record<string, string>, body?: string) {
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      const stream = session.request(headers);
      let status = 0;
      let text = '';
      stream.on('response', (answer) => (status = Number(answer[':status'])));
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      stream.on('end', () => resolve({ status, text }));
      stream.on('error', reject);
      stream.end(body);
    });
  }

  it('negotiates h2 and serves requests through the same handler, as TLS from the client address', async () => {
    expect((session.socket as TLSSocket).alpnProtocol).toBe('h2');
    expect(await exchange({ ':path': '/h2' })).toEqual({ status: 200, text: 'tls /h2' });
    expect(await exchange({ ':method': 'POST', ':path': '/echo' }, 'hello')).toEqual({
      status: 200,
      text: `POST hello from 127.0.0.1 127.0.0.1:${port}`,
    });
  });

  it('serves many streams of one connection at once, and a streamed answer as it comes', async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, (_, i) => exchange({ ':path': `/many-${i}` })),
    );
    expect(answers.map((a) => a.text)).toEqual(Array.from({ length: 30 }, (_, i) => `tls /many-${i}`));
    expect((await exchange({ ':path': '/stream' })).text).toBe(
      Array.from({ length: 6 }, (_, i) => `tick ${i + 1}\n`).join(''),
    );
  });

  it('closes the request when the client resets its stream, and keeps serving', async () => {
    endlessClosed = false;
    const stream = session.request({ ':path': '/endless' });
    stream.on('error', () => {});
    await new Promise((resolve) => stream.once('data', resolve));
    stream.close(httpConstants.NGHTTP2_CANCEL);
    await vi.waitFor(() => expect(endlessClosed).toBe(true), { timeout: 2000 });
    expect(await exchange({ ':path': '/after-reset' })).toEqual({ status: 200, text: 'tls /after-reset' });
  });

  it('holds a client that stops reading: the handler’s writes wait instead of piling up', async () => {
    endlessClosed = false;
    const stream = session.request({ ':path': '/endless' });
    stream.on('error', () => {});
    await new Promise((resolve) => stream.once('data', resolve));
    stream.pause();
    // Unheld, the handler would write its 64 MiB; HTTP/2 flow control and the in-memory connection's
    // back-pressure refuse a write at a few windows' worth, and the handler waits for 'drain', which a client
    // that does not read never sends.
    await vi.waitFor(() => expect(endlessHeld).toBe(true), { timeout: 5000, interval: 5 });
    expect(endlessWritten).toBeLessThan(4 * 1024 * 1024);
    stream.close(httpConstants.NGHTTP2_CANCEL);
    await vi.waitFor(() => expect(endlessClosed).toBe(true), { timeout: 2000 });
  });
});

describe('closing the server', () => {
  it('ends idle HTTP/2 sessions (GOAWAY) so close() completes, as kube-apiserver keeps one pooled', async () => {
    const own = createServer((_request, response) => response.end('ok'));
    serveTlsOnSamePort(own, certificate, LIMITS);
    await new Promise<void>((resolve) => own.listen(0, '127.0.0.1', resolve));
    const session = connectHttp2(`https://127.0.0.1:${(own.address() as AddressInfo).port}`, {
      ca: certificate.cert,
    });
    session.on('error', () => {});
    const sessionClosed = new Promise<void>((resolve) => session.once('close', () => resolve()));
    const stream = session.request({ [httpConstants.HTTP2_HEADER_PATH]: '/' });
    let body = '';
    stream.on('data', (chunk: Buffer) => (body += chunk.toString()));
    await new Promise((resolve) => stream.on('end', resolve));
    expect(body).toBe('ok');
    // The session stays open and idle, as a pooling client leaves it.
    await new Promise<void>((resolve, reject) => own.close((error) => (error ? reject(error) : resolve())));
    await sessionClosed;
    expect(session.closed || session.destroyed).toBe(true);
  });
});
