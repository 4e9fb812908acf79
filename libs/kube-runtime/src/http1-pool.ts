import { createSecureContext } from 'node:tls';
import { Pool } from 'undici';
import {
  abortReason,
  sameTls,
  tlsOf,
  type KubeResponse,
  type TransportRequest,
  type TransportTls,
} from './transport.js';

/**
 * How long an idle keep-alive connection is kept for the next request. kube-apiserver closes idle connections
 * after 90 s (its `IdleTimeout`, matching client-go's); closing ours first means a request never goes out on a
 * socket the server is just closing. undici's own default (4 s) would mean new TLS handshakes after every pause.
 */
const KEEP_ALIVE_MS = 75_000;

/**
 * Keep-alive HTTP/1.1 connections to one API server (undici's `Pool`): the transport of a client without HTTP/2.
 *
 * undici rather than `node:https`'s Agent because it costs less CPU per request (268–401 µs against 390–609 µs
 * per TLS GET to kube-apiserver; 12% less controller CPU over a convergence benchmark), and requests are most of
 * the controller's CPU.
 *
 * - As many connections as there are requests in flight (a watch holds one for as long as it runs); an idle
 *   connection is closed after KEEP_ALIVE_MS and never keeps the process alive.
 * - No timeouts of its own: the client bounds the wait for headers, and a watch's body is its caller's to bound.
 * - `signal` aborts the request whenever it fires; a body already streaming is destroyed with its reason.
 * - A request whose TLS material differs from the pool's (rotated certificates) gets a new pool; the old one
 *   closes once its requests (and watches) have finished.
 * - A DELETE with a body keeps its connection like any other request.
 * - Connections share one TLS context per pool: parsing the CA and key again for each new connection (what
 *   passing them to every `tls.connect` does) cost more CPU than the handshake itself in a burst of deletes.
 */
export class Http1Pool {
  private live: { pool: Pool; tls: TransportTls } | undefined;

  constructor(private readonly origin: string) {}

  /** Sends a request; resolves once the response headers came, with the body still to read. */
  async request(req: TransportRequest, tls: TransportTls): Promise<KubeResponse> {
    const { signal } = req;
    if (signal?.aborted) throw abortReason(signal);
    const { statusCode, headers, body } = await this.current(tls).request({
      path: req.url.pathname + req.url.search,
      method: req.method as 'GET',
      headers: req.headers,
      body: req.body,
      signal,
      headersTimeout: 0,
      bodyTimeout: 0,
      // undici closes the connection after a body sent with a method it expects none for (DELETE, which carries
      // DeleteOptions with preconditions); kube-apiserver reads those bodies, so keep the connection.
      reset: false,
    });
    // undici's body is a Readable already: give it the status and headers instead of copying it into another.
    return Object.assign(body, { statusCode, headers }) as unknown as KubeResponse;
  }

  /** Destroys every connection; requests still running on them fail. The next request opens new ones. */
  close(): void {
    void this.live?.pool.destroy().catch(() => {});
    this.live = undefined;
  }

  private current(tls: TransportTls): Pool {
    const live = this.live;
    if (live && !live.pool.closed && !live.pool.destroyed) {
      if (live.tls === tls) return live.pool;
      if (sameTls(live.tls, tls)) {
        live.tls = tls; // the same material re-applied: compare again only when it is re-applied next
        return live.pool;
      }
      void live.pool.close().catch(() => {}); // rotated: let its requests finish
    }
    const pool = new Pool(this.origin, {
      connect: this.origin.startsWith('https:') ? connectOptions(tls) : undefined,
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MS,
    });
    this.live = { pool, tls };
    return pool;
  }
}

function connectOptions(tls: TransportTls): Pool.Options['connect'] {
  const { servername, rejectUnauthorized, ...material } = tlsOf(tls);
  return { secureContext: createSecureContext(material), servername, rejectUnauthorized };
}
