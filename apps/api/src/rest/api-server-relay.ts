import { Inject, Injectable } from '@nestjs/common';
import { KubeClient, type KubeRequest, type KubeResponse, errorMessage } from '@ngx/kube-runtime';
import type { Request, Response } from 'express';
import { StatusError } from '../http/kube-status.js';
import { RelayLimits } from './relay-limits.js';
import { pump } from './stream-pump.js';

/** Response headers of the API server worth passing on: representation, warnings, back-pressure, tracing. */
const RELAYED_HEADERS = ['content-type', 'warning', 'retry-after', 'audit-id', 'cache-control'];

/**
 * An answer that declares at most this many bytes is read whole and written to the client at once (one write,
 * with its Content-Length) rather than streamed chunk by chunk: a single object costs one round of writes, not three.
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
  async exchange(req: KubeRequest, clientRequest?: Request): Promise<RelayedAnswer> {
    const abort = abortOnDisconnect(clientRequest);
    const response = await this.send({ ...req, signal: abort?.signal });
    const body = await readAll(response);
    return { code: response.statusCode ?? 502, headers: relayedHeaders(response), body };
  }

  /** Writes an answer read by `exchange` to the client. */
  reply(answer: RelayedAnswer, res: Response): void {
    res.status(answer.code).set(answer.headers).end(answer.body);
  }

  /**
   * Sends a read and streams the answer to the client as it arrives, never holding more than the socket's own
   * buffer: a list of thousands of objects costs the control plane no more memory than a small one. A client that
   * goes away closes the upstream request; one that stops reading is cut after the stall bound; an answer cut
   * short upstream cuts the client's too, so a truncated list is never taken for a whole one. A small answer
   * (SMALL_ANSWER_BYTES) is read whole first and sent in one write.
   */
  async pipe(req: KubeRequest, clientRequest: Request, res: Response): Promise<void> {
    const abort = abortOnDisconnect(clientRequest)!;
    const upstream = await this.send({ ...req, signal: abort.signal });
    if (Number(upstream.headers['content-length']) <= SMALL_ANSWER_BYTES) {
      const body = await readAll(upstream).catch((error: unknown) => {
        if (abort.signal.aborted) throw new StatusError(499, 'the client closed the request');
        throw new StatusError(503, `the Kubernetes API server's answer broke off: ${errorMessage(error)}`);
      });
      return this.reply({ code: upstream.statusCode ?? 502, headers: relayedHeaders(upstream), body }, res);
    }
    res.status(upstream.statusCode ?? 502).set(relayedHeaders(upstream));
    await pump(upstream, res, { cutOnUpstreamFailure: true, stallMs: this.limits.stallMs });
  }

  /**
   * Streams the API server's answer to the client as it arrives (a watch), flushing headers at once; closes the
   * upstream request when the client goes away, and ends the client's response when the upstream one ends. A
   * client that stops reading is cut after the stall bound rather than buffered for.
   */
  async stream(req: KubeRequest, clientRequest: Request, res: Response): Promise<void> {
    const abort = abortOnDisconnect(clientRequest)!;
    const upstream = await this.send({ ...req, signal: abort.signal });
    res.status(upstream.statusCode ?? 502).set(relayedHeaders(upstream));
    res.flushHeaders();
    await pump(upstream, res, { cutOnUpstreamFailure: false, stallMs: this.limits.stallMs });
  }

  private async send(req: KubeRequest): Promise<KubeResponse> {
    try {
      // Users' requests are bounded by their tokens' rate limits; they neither wait behind nor starve the controller.
      return await this.client.forward({ ...req, priority: 'exempt' });
    } catch (error) {
      if (req.signal?.aborted) throw new StatusError(499, 'the client closed the request');
      throw new StatusError(503, `the Kubernetes API server is unavailable: ${errorMessage(error)}`);
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

/** An AbortController that fires when the client disconnects before its response is complete. */
function abortOnDisconnect(request: Request | undefined): AbortController | undefined {
  if (!request) return undefined;
  const abort = new AbortController();
  request.res?.once('close', () => {
    if (!request.res?.writableFinished) abort.abort();
  });
  return abort;
}

function readAll(response: KubeResponse): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.once('end', () => resolve(Buffer.concat(chunks)));
    response.once('error', reject);
    response.once('aborted', () => reject(new Error('the API server closed the response')));
  });
}
