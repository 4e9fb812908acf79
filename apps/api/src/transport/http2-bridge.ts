import {
  request as http1Request,
  type ClientRequest,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
} from 'node:http';
import {
  constants,
  createServer as createHttp2Server,
  type Http2Server,
  type IncomingHttpHeaders as Http2Headers,
  type ServerHttp2Stream,
} from 'node:http2';
import { duplexPair, type Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';

/** Headers of HTTP/1.1 that HTTP/2 forbids (RFC 9113 section 8.2.2), dropped from answers. */
const CONNECTION_HEADERS = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

/** What one HTTP/2 connection may hold at once: streams (as kube-apiserver allows by default) and idle time. */
export const HTTP2_LIMITS = Object.freeze({ maxConcurrentStreams: 100, idleMs: 120_000 });

/**
 * HTTP/2 for TLS clients that negotiate it (ALPN `h2`, as client-go, kubectl and browsers do): each stream is
 * handed to the app's own HTTP/1.1 request handling over an in-memory connection (`hand`), so every route, guard,
 * limit, the change audit and the relay serve it exactly as they serve HTTP/1.1, with no framework support for
 * HTTP/2 needed (Express has none). The in-memory connection carries the TLS socket's facts the app reads:
 * `encrypted`, `remoteAddress`, `remotePort`, and the client certificate (`authorized`, `getPeerCertificate`). Back-pressure holds end to end: a client that stops reading a watch
 * stops the app's writes, as on HTTP/1.1. A stream the client resets closes its request; an answer cut short
 * resets the stream.
 */
export function http2Bridge(hand: (connection: Duplex) => void): Http2Server {
  const server = createHttp2Server({
    settings: { maxConcurrentStreams: HTTP2_LIMITS.maxConcurrentStreams },
  });
  server.on('session', (session) => {
    session.setTimeout(HTTP2_LIMITS.idleMs, () => session.close());
    session.on('error', () => session.destroy());
  });
  server.on('stream', (stream, headers) => {
    const tls = stream.session?.socket as TLSSocket | undefined;
    bridgeStream(stream, headers, hand, tls);
  });
  return server;
}

function bridgeStream(
  stream: ServerHttp2Stream,
  headers: Http2Headers,
  hand: (connection: Duplex) => void,
  tls: TLSSocket | undefined,
): void {
  const [appSide, bridgeSide] = inMemoryConnection();
  let upstream: ClientRequest;
  try {
    upstream = http1Request({
      createConnection: () => bridgeSide,
      method: headers[constants.HTTP2_HEADER_METHOD] as string,
      path: headers[constants.HTTP2_HEADER_PATH] as string,
      headers: http1Headers(headers),
    });
  } catch {
    // A request HTTP/1.1 cannot carry (a method that is no token, a header value it refuses): nghttp2 refuses most
    // such streams itself; any that gets past it is answered 400 here rather than thrown out of the stream's
    // event, which would end the process.
    appSide.destroy();
    stream.respond({ [constants.HTTP2_HEADER_STATUS]: 400 });
    return void stream.end();
  }
  Object.assign(appSide, {
    encrypted: true,
    remoteAddress: tls?.remoteAddress,
    remotePort: tls?.remotePort,
    alpnProtocol: 'h2',
    authorized: tls?.authorized ?? false,
    getPeerCertificate: () => tls?.getPeerCertificate() ?? {},
  });
  hand(appSide);
  // A stream reset by the client, or closed once answered: either way its request is over.
  stream.on('error', () => upstream.destroy());
  stream.on('close', () => upstream.destroy());
  upstream.on('error', () => {
    if (!stream.destroyed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  });
  upstream.on('response', (answer) => {
    if (stream.destroyed) return void answer.destroy();
    stream.respond(http2Headers(answer.statusCode ?? 502, answer.headers));
    answer.pipe(stream);
    answer.on('aborted', () => stream.close(constants.NGHTTP2_INTERNAL_ERROR));
  });
  stream.pipe(upstream);
}

/**
 * Two connected ends, each reading what the other writes with back-pressure; ending one's writes ends the other's
 * reads, and closing either end closes both. `duplexPair` alone does not pass a destroy across (Node 20 leaves the
 * other end open; later versions only end its reads): a stream reset must close the app's request, and an answer
 * cut short must fail the bridge's request.
 */
function inMemoryConnection(): [Duplex, Duplex] {
  const [a, b] = duplexPair({ allowHalfOpen: false });
  a.once('close', () => b.destroy());
  b.once('close', () => a.destroy());
  return [a, b];
}

/** The request's headers as HTTP/1.1 has them: `:authority` as Host, pseudo-headers and cookies joined. */
function http1Headers(headers: Http2Headers): OutgoingHttpHeaders {
  const result: OutgoingHttpHeaders = { connection: 'close' };
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    result[name] = name === 'cookie' && Array.isArray(value) ? value.join('; ') : value;
  }
  const authority = headers[constants.HTTP2_HEADER_AUTHORITY];
  if (result.host === undefined && typeof authority === 'string') result.host = authority;
  return result;
}

function http2Headers(status: number, headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const result: OutgoingHttpHeaders = { [constants.HTTP2_HEADER_STATUS]: status };
  for (const [name, value] of Object.entries(headers))
    if (!CONNECTION_HEADERS.has(name) && value !== undefined) result[name] = value;
  return result;
}
