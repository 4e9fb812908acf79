import { Inject, Injectable } from '@nestjs/common';
import { KubeClient, type KubeRequest, type KubeResponse, errorMessage } from '@ngx/kube-runtime';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StatusException } from '../http/kube-status.js';
import { warningHeader } from '../http/warning-header.js';
import { RelayLimits } from './relay-limits.js';
import { pump } from './stream-pump.js';
import { requestTrace } from '../tracing/server-spans.js';

/** Response headers of the API server worth passing on: representation, warnings, back-pressure, tracing. */
const RELAYED_HEADERS = ['content-type', 'warning', 'retry-after', 'audit-id', 'cache-control'];

/**
 * An answer that ends within this many bytes is read whole and written to the client at once (one write, with its
 * Content-Length) rather than streamed chunk by chunk: a single object costs one round of writes, not three.
 */
const SMALL_ANSWER_BYTES = 64 * 1024;

/** What the API server answered to a relayed request whose body was read (not streamed). */
export interface RelayedAnswer {
  code: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * Sends requests on to the API server with the control plane's credentials and hands its answers back as they
 * came (code, Status bodies, Warning headers, Table representations). The API server stays the single source of
 * truth: nothing here stores or rewrites objects. Relayed requests skip the controller's client QPS limit.
 */
@Injectable()
export class ApiServerRelay {
  constructor(
    @Inject(KubeClient) private readonly client: KubeClient,
    @Inject(RelayLimits) private readonly limits: RelayLimits,
  ) {}

  /** Sends a request and reads the whole answer (objects, lists, Status), for callers that look at it. */
  async exchange(
    req: KubeRequest,
    clientRequest?: IncomingMessage & { res?: ServerResponse },
  ): Promise<RelayedAnswer> {
    const abort = clientRequest?.res ? abortOnDisconnect(clientRequest.res) : undefined;
    const response = await this.send({
      ...req,
      signal: abort?.signal,
      trace: req.trace ?? requestTrace(clientRequest),
    });
    const { body } = await readUpTo(response, Infinity);
    return { code: response.statusCode ?? 502, headers: relayedHeaders(response), body };
  }

  /** Writes an answer read by `exchange` to the client, its headers as the API server sent them. */
  reply(answer: RelayedAnswer, res: ServerResponse): void {
    // With its length: a head written without one would make Node.js send the body chunked.
    res.writeHead(answer.code, { ...answer.headers, 'content-length': answer.body.length }).end(answer.body);
  }

  /**
   * Sends a read and streams the answer to the client as it arrives, never holding more than the socket's own
   * buffer beyond its first SMALL_ANSWER_BYTES: a list of thousands of objects costs the control plane no more
   * memory than a small one. An answer that ends within those bytes (one object, a short list, a Status; the API
   * server declares no length for most of them) is sent in one write with its length. A client that goes away
   * closes the upstream request; one that stops reading is cut after the stall bound; an answer cut short
   * upstream cuts the client's too, so a truncated list is never taken for a whole one. Plain Node.js response,
   * so the relayed-read lane (RelayedReadLane) uses it as Express's routes do.
   */
  async pipe(req: KubeRequest, res: ServerResponse): Promise<void> {
    const abort = abortOnDisconnect(res);
    const upstream = await this.send({ ...req, signal: abort.signal, trace: requestTrace(res.req) });
    const code = upstream.statusCode ?? 502;
    const headers = relayedHeaders(upstream);
    const first = await readUpTo(upstream, SMALL_ANSWER_BYTES).catch((error: unknown) => {
      if (abort.signal.aborted) throw new StatusException(499, 'the client closed the request');
      throw new StatusException(503, `the Kubernetes API server's answer broke off: ${errorMessage(error)}`);
    });
    if (first.ended) return this.reply({ code, headers, body: first.body }, res);
    res.writeHead(code, headers);
    res.write(first.body);
    const pumped = pump(upstream, res, { cutOnUpstreamFailure: true, stallMs: this.limits.stallMs });
    upstream.resume();
    await pumped;
  }

  /**
   * Streams the API server's answer to the client as it arrives (a watch), flushing headers at once; closes the
   * upstream request when the client goes away, and ends the client's response when the upstream one ends. A
   * client that stops reading is cut after the stall bound rather than buffered for. `warnings` (texts) are added
   * to the API server's own Warning headers.
   */
  async stream(req: KubeRequest, res: ServerResponse, warnings: readonly string[] = []): Promise<void> {
    const abort = abortOnDisconnect(res);
    const upstream = await this.send({ ...req, signal: abort.signal, trace: requestTrace(res.req) });
    res.writeHead(upstream.statusCode ?? 502, withWarnings(relayedHeaders(upstream), warnings));
    res.flushHeaders();
    await pump(upstream, res, { cutOnUpstreamFailure: false, stallMs: this.limits.stallMs });
  }

  private async send(req: KubeRequest): Promise<KubeResponse> {
    try {
      // Users' requests are bounded by their tokens' rate limits; they neither wait behind nor starve the controller.
      return await this.client.forward({ ...req, priority: 'exempt' });
    } catch (error) {
      if (req.signal?.aborted) throw new StatusException(499, 'the client closed the request');
      throw new StatusException(503, `the Kubernetes API server is unavailable: ${errorMessage(error)}`);
    }
  }
}

function relayedHeaders(response: KubeResponse): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  for (const name of RELAYED_HEADERS) {
    const value = response.headers[name];
    if (value !== undefined) headers[name] = value;
  }
  return headers;
}

function withWarnings(
  headers: Record<string, string | string[]>,
  texts: readonly string[],
): Record<string, string | string[]> {
  if (texts.length === 0) return headers;
  const upstream = headers.warning;
  const given = upstream === undefined ? [] : Array.isArray(upstream) ? upstream : [upstream];
  return { ...headers, warning: [...given, ...texts.map(warningHeader)] };
}

/** An AbortController that fires when the client disconnects before its response is complete. */
function abortOnDisconnect(response: ServerResponse): AbortController {
  const abort = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) abort.abort();
  });
  return abort;
}

/**
 * Reads an answer until it ends (`ended`) or more than `bound` bytes came (not ended: the stream is left paused
 * with the rest still to read). A failure after that is left for the next reader (pump sees `errored`); until
 * then it is swallowed here rather than left to crash the process as an unhandled 'error'.
 */
function readUpTo(response: KubeResponse, bound: number): Promise<{ body: Buffer; ended: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (ended: boolean) => {
      settled = true;
      response.off('data', onData);
      response.off('end', onEnd);
      resolve({ body: Buffer.concat(chunks), ended });
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size <= bound) return;
      response.pause();
      settle(false);
    };
    const onEnd = () => settle(true);
    const onFailure = (error?: unknown) => {
      if (!settled) reject(error instanceof Error ? error : new Error('the API server closed the response'));
    };
    response.on('data', onData);
    response.once('end', onEnd);
    response.once('error', onFailure);
    response.once('aborted', onFailure);
  });
}
