import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { corkFlushes } from './cork-writes.js';

const BURST = 200;

/** Counts the TCP writes under a server-side socket.io socket (ws keeps the net.Socket as `_socket`). */
function countWrites(socket: Socket): () => number {
  const tcp = (socket.conn as unknown as { transport: { socket: { _socket: Record<string, unknown> } } })
    .transport.socket._socket;
  let writes = 0;
  for (const method of ['_write', '_writev'] as const) {
    const original = tcp[method] as (...args: unknown[]) => unknown;
    tcp[method] = function (this: unknown, ...args: unknown[]) {
      writes += 1;
      return original.apply(this, args);
    };
  }
  return () => writes;
}

describe('corkFlushes', () => {
  let http: HttpServer;
  let server: Server;
  const clients: ClientSocket[] = [];

  afterEach(async () => {
    for (const client of clients.splice(0)) client.close();
    await server?.close();
    http?.closeAllConnections();
  });

  /** A burst of BURST changes to one client: how many TCP writes it took, and what the client received. */
  async function burst(cork: boolean): Promise<{ writes: number; received: number[] }> {
    http = createServer();
    server = new Server(http, { transports: ['websocket'] });
    const connected = new Promise<Socket>((resolve) =>
      server.on('connection', (socket) => {
        if (cork) corkFlushes(socket);
        resolve(socket);
      }),
    );
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const client = connect(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, {
      transports: ['websocket'],
    });
    clients.push(client);
    const socket = await connected;
    await new Promise<void>((resolve) => (client.connected ? resolve() : client.once('connect', resolve)));
    const writes = countWrites(socket);
    const received: number[] = [];
    const all = new Promise<void>((resolve) =>
      client.on('change', (n: number) => {
        received.push(n);
        if (received.length === BURST) resolve();
      }),
    );
    for (let n = 0; n < BURST; n++) socket.emit('change', n);
    await all;
    return { writes: writes(), received };
  }

  it('sends a burst of changes to one client in a few TCP writes, all of them, in order', async () => {
    const corked = await burst(true);
    expect(corked.received).toEqual(Array.from({ length: BURST }, (_, n) => n));
    expect(corked.writes).toBeLessThanOrEqual(4);
  });

  it('without it, the same burst takes a write per change (what it is for)', async () => {
    const plain = await burst(false);
    expect(plain.received).toHaveLength(BURST);
    expect(plain.writes).toBeGreaterThan(BURST / 2);
  });
});
