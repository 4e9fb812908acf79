import type { IncomingHttpHeaders } from 'node:http';
import {
  connect,
  constants,
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type IncomingHttpHeaders as Http2Headers,
} from 'node:http2';
import { Readable } from 'node:stream';
import {
  abortReason,
  sameTls,
  type KubeResponse,
  type TransportRequest,
  type TransportTls,
} from './transport.js';

export interface Http2SessionOptions {
  /** While streams are open, the session is PINGed this often; default 30 s (client-go's ReadIdleTimeout). */
  pingIntervalMs?: number;
  /** A PING unanswered this long destroys the session; default 15 s (client-go's PingTimeout). */
  pingTimeoutMs?: number;
}

/** Per-stream receive window: how much of one answer the server may send ahead of our reading it. */
const STREAM_WINDOW = 1024 * 1024;
/** Receive window of the whole connection (consumed as data arrives, so a paused stream never blocks others). */
const CONNECTION_WINDOW = 16 * 1024 * 1024;
/** Node refuses new streams beyond this (default 10 MB); paused streams may hold up to a window each. */
const SESSION_MEMORY_MB = 64;

/**
 * One multiplexed HTTP/2 connection to the API server, shared by every request of a client (as client-go does).
 *
 * - The session is opened lazily, by the first request. Once it closes, errors or receives GOAWAY, it is never
 *   used again: the next request opens a new one. Streams in flight on a session that dies fail with an error
 *   (a body cut short errors too, never ends as if whole); callers retry.
 * - A request whose TLS material differs from the session's (rotated certificates) gets a new session; the old
 *   one is closed gracefully, finishing its streams.
 * - A session with no open stream is unref'd, so an idle client never keeps the process alive.
 * - While streams are open, a PING every `pingIntervalMs` unanswered within `pingTimeoutMs` destroys the session,
 *   so a dead connection fails its streams instead of holding them (and every later request) forever.
 * - Bodies are streamed with back-pressure: a response not read stops its stream's flow-control window, not the
 *   connection, and never buffers more than the window.
 * - `signal` resets the stream (RST_STREAM CANCEL) whenever it fires; destroying a response does the same.
 */
export class Http2Session {
  private live: Live | undefined;
  private readonly pingIntervalMs: number;
  private readonly pingTimeoutMs: number;

  constructor(
    private readonly origin: string,
    options: Http2SessionOptions = {},
  ) {
    this.pingIntervalMs = options.pingIntervalMs ?? 30_000;
    this.pingTimeoutMs = options.pingTimeoutMs ?? 15_000;
  }

  /** Sends a request; resolves once the response headers came, with the body still to read. */
  request(req: TransportRequest, tls: TransportTls): Promise<KubeResponse> {
    const { signal } = req;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    let stream: ClientHttp2Stream;
    try {
      const headers: Record<string, string | string[]> = {
        ':method': req.method,
        ':path': req.url.pathname + req.url.search,
      };
      for (const [name, value] of Object.entries(req.headers)) headers[name.toLowerCase()] = value;
      const live = this.current(tls);
      stream = live.session.request(headers, { endStream: req.body === undefined });
      hold(live, stream);
    } catch (error) {
      return Promise.reject(error as Error); // e.g. the session failed between our check and the request
    }

    return new Promise<KubeResponse>((resolve, reject) => {
      let response: Http2Response | undefined;
      const abort = () => {
        const reason = abortReason(signal!);
        if (response) response.destroy(reason);
        else {
          stream.close(constants.NGHTTP2_CANCEL);
          reject(reason);
        }
      };
      signal?.addEventListener('abort', abort, { once: true });
      // Before the answer, errors reject (with the signal's reason when it caused them); after it, the response
      // reports them. Either way a listener stays, so a late stream error never goes uncaught.
      stream.on('error', (error) => {
        if (response) response.destroy(error);
        else reject(signal?.aborted ? abortReason(signal) : error);
      });
      stream.once('close', () => {
        signal?.removeEventListener('abort', abort);
        if (!response)
          reject(new Error(`the HTTP/2 stream to ${this.origin} closed before the API server answered`));
      });
      stream.once('response', (headers) => {
        response = new Http2Response(stream, headers);
        resolve(response);
      });
      if (req.body !== undefined) stream.end(req.body);
    });
  }

  /** Destroys the session; streams still open on it fail. The next request opens a new one. */
  close(): void {
    this.live?.session.destroy();
    this.live = undefined;
  }

  /** The live session for this TLS material, opening one if there is none (or the material changed). */
  private current(tls: TransportTls): Live {
    const live = this.live;
    if (live && !live.session.closed && !live.session.destroyed) {
      if (live.tls === tls) return live;
      if (sameTls(live.tls, tls)) {
        live.tls = tls; // the same material re-applied: compare again only when it is re-applied next
        return live;
      }
      live.session.close(); // rotated: let its streams finish
    }
    return this.open(tls);
  }

  private open(tls: TransportTls): Live {
    const { ca, cert, key, pfx, passphrase, servername, rejectUnauthorized } = tls;
    const session = connect(this.origin, {
      ca,
      cert,
      key,
      pfx,
      passphrase,
      servername,
      rejectUnauthorized,
      settings: { initialWindowSize: STREAM_WINDOW, enablePush: false },
      maxSessionMemory: SESSION_MEMORY_MB,
    });
    const live: Live = { session, tls, open: 0 };
    this.live = live;
    session.unref(); // until a stream is open
    const forget = () => {
      if (this.live === live) this.live = undefined;
    };
    session.on('error', forget); // its streams fail with the error too
    session.on('goaway', forget); // Node closes it, or destroys it for an error code
    const pings = setInterval(() => live.open > 0 && this.ping(session), this.pingIntervalMs).unref();
    session.on('close', () => {
      forget();
      clearInterval(pings);
    });
    session.once('connect', () => session.setLocalWindowSize(CONNECTION_WINDOW));
    return live;
  }

  private ping(session: ClientHttp2Session): void {
    if (session.destroyed || session.connecting) return;
    const timer = setTimeout(
      () => session.destroy(new Error(`no answer to an HTTP/2 PING within ${this.pingTimeoutMs} ms`)),
      this.pingTimeoutMs,
    ).unref();
    const sent = session.ping((error) => {
      clearTimeout(timer);
      if (error && !session.destroyed) session.destroy(error);
    });
    if (!sent) clearTimeout(timer); // one is already outstanding, with its own timer
  }
}

interface Live {
  session: ClientHttp2Session;
  tls: TransportTls;
  /** Streams open on it: its socket is ref'd while there is one. */
  open: number;
}

function hold(live: Live, stream: ClientHttp2Stream): void {
  if (live.open++ === 0) live.session.ref();
  stream.once('close', () => {
    if (--live.open === 0 && !live.session.destroyed) live.session.unref();
  });
}

/**
 * An HTTP/2 answer as a `KubeResponse`: the stream's body passed on with back-pressure (the stream is paused
 * while this one's buffer is full), and an error, never an end, when the stream closes before its end.
 */
class Http2Response extends Readable implements KubeResponse {
  readonly statusCode: number;
  readonly headers: IncomingHttpHeaders = {};

  constructor(
    private readonly stream: ClientHttp2Stream,
    headers: Http2Headers,
  ) {
    super();
    this.statusCode = Number(headers[':status']);
    for (const [name, value] of Object.entries(headers)) {
      if (!name.startsWith(':')) this.headers[name] = value;
    }
    let ended = false;
    stream.on('data', (chunk: Buffer) => {
      if (!this.push(chunk)) stream.pause();
    });
    stream.once('end', () => {
      // Node ends a stream cut off by its session's end (code CANCEL) as if it were whole; tell the two apart.
      const code = stream.rstCode ?? constants.NGHTTP2_NO_ERROR;
      if (code !== constants.NGHTTP2_NO_ERROR) return void this.destroy(cutShort(code));
      ended = true;
      this.push(null);
    });
    stream.once('close', () => {
      if (!ended) this.destroy(cutShort(stream.rstCode));
    });
  }

  override _read(): void {
    this.stream.resume();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.stream.closed) this.stream.close(constants.NGHTTP2_CANCEL);
    callback(error);
  }
}

function cutShort(code: number | undefined): Error {
  const why = code ? ` (code ${code})` : '';
  return new Error(`the HTTP/2 stream closed before the response ended${why}`);
}
