import type { Server } from 'node:http';
import type { Http2Server, Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { createServer as createTlsServer, type TlsOptions } from 'node:tls';
import { CONNECTION_LIMITS, type ConnectionLimits } from './connection-limits.js';
import { http2Bridge } from './http2-bridge.js';

/** The first byte of a TLS handshake record; plain HTTP starts with a method name in ASCII. */
const TLS_HANDSHAKE = 0x16;

/**
 * Makes an HTTP server answer TLS on the same port: each new connection's first byte tells a TLS ClientHello
 * from a plain request, and TLS connections are decrypted and handed to the same request handling — over HTTP/2
 * when the client offers it in ALPN (see http2-bridge.ts), else HTTP/1.1. Browsers keep using http://, while
 * kubectl — which sends bearer tokens only over TLS — uses https:// on the same port.
 *
 * Until a connection is handed on, this is its only reader, so it also owns the connection's failures: an error
 * (a reset before the first byte) only closes that connection, and a client that sends nothing within
 * `limits.firstByteMs`, or does not finish the TLS handshake within `limits.tlsHandshakeMs`, is disconnected. After
 * the hand-over the HTTP server's own error handling and header and request bounds apply (connection-limits.ts).
 */
export function serveTlsOnSamePort(
  server: Server,
  tls: TlsOptions,
  limits: Pick<ConnectionLimits, 'firstByteMs' | 'tlsHandshakeMs'> = CONNECTION_LIMITS,
): void {
  const handleConnection = server.listeners('connection') as ((socket: Socket) => void)[];
  server.removeAllListeners('connection');
  // Node's HTTP server serves any duplex stream as a connection (the HTTP/2 bridge hands it in-memory ones).
  const hand = (socket: Duplex) => {
    for (const listener of handleConnection) listener.call(server, socket as Socket);
  };
  const http2 = http2Bridge(hand);
  closeHttp2OnClose(server, http2);
  // HTTP/2 for clients that offer it (client-go, kubectl, browsers), HTTP/1.1 for the others and for WebSockets.
  const tlsServer = createTlsServer(
    { ...tls, handshakeTimeout: limits.tlsHandshakeMs, ALPNProtocols: ['h2', 'http/1.1'] },
    (socket) => (socket.alpnProtocol === 'h2' ? http2.emit('connection', socket) : hand(socket)),
  );
  // Failed handshakes (resets, timeouts, garbage) end that connection only.
  tlsServer.on('tlsClientError', (_error, socket) => socket.destroy());

  server.on('connection', (socket: Socket) => {
    const close = () => socket.destroy();
    socket.on('error', close);
    const silent = setTimeout(close, limits.firstByteMs);
    // A client that ends its side without sending anything: the server allows half-open sockets, so say goodbye.
    socket.once('end', close);
    socket.once('close', () => clearTimeout(silent));

    socket.once('readable', function sniff() {
      const first = socket.read(1) as Buffer | null;
      if (!first) return void socket.once('readable', sniff);
      clearTimeout(silent);
      socket.off('end', close);
      socket.unshift(first);
      if (first[0] === TLS_HANDSHAKE) {
        // The TLS socket reads through this one's handle and listens for its errors too; ours stays as a backstop
        // (an error after that only needs the connection closed, and the TLS socket closes with it).
        tlsServer.emit('connection', socket);
      } else {
        // The HTTP server listens for errors from here on, and answers malformed requests itself (400).
        socket.off('error', close);
        hand(socket);
      }
    });
  });
}

/**
 * Makes `server.close()` also end the HTTP/2 sessions (GOAWAY: their open streams finish, no new ones start).
 * Otherwise a client that keeps an idle session pooled — kube-apiserver does, after calling the admission or audit
 * webhook — would hold the shutdown until the session's idle timeout.
 */
function closeHttp2OnClose(server: Server, http2: Http2Server): void {
  const sessions = new Set<Http2Session>();
  http2.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const close = server.close.bind(server);
  server.close = ((callback?: (error?: Error) => void) => {
    for (const session of sessions) session.close();
    return close(callback);
  }) as Server['close'];
}
