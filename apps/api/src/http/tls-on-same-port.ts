import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';

/** The first byte of a TLS handshake record; plain HTTP starts with a method name in ASCII. */
const TLS_HANDSHAKE = 0x16;

/**
 * Makes an HTTP server answer TLS on the same port: each new connection's first byte tells a TLS ClientHello
 * from a plain request, and TLS connections are decrypted and handed to the same request handling. Browsers
 * keep using http://, while kubectl — which sends bearer tokens only over TLS — uses https:// on the same port.
 */
export function serveTlsOnSamePort(server: Server, tls: TlsOptions): void {
  const handleConnection = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  const hand = (socket: Socket) => {
    for (const listener of handleConnection) listener.call(server, socket);
  };
  const tlsServer = createTlsServer(tls, hand);
  tlsServer.on('tlsClientError', (_error, socket) => socket.destroy());

  server.on('connection', (socket: Socket) => {
    socket.once('readable', function sniff() {
      const first = socket.read(1) as Buffer | null;
      if (!first) return void socket.once('readable', sniff);
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) tlsServer.emit('connection', socket);
      else hand(socket);
    });
  });
}
