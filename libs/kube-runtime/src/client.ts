import { request as httpRequest } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { linkedSignal } from './abort-scope.js';
import { KubeApiError } from './api-error.js';
import type { RestClientMetrics } from './client-metrics.js';
import type { RequestTrace, RestClientTracing } from './client-tracing.js';
import { realClock, type Clock } from './clock.js';
import { Http1Pool } from './http1-pool.js';
import { Http2Session } from './http2-session.js';
import { TokenBucket } from './token-bucket.js';
import type { KubeResponse } from './transport.js';

export type { KubeResponse } from './transport.js';

export interface KubeClientOptions {
  /** Requests per second for this client, shared by every informer and writer using it (client-go's --kube-api-qps). */
  qps?: number;
  /** Requests allowed at once above the steady rate (client-go's --kube-api-burst). */
  burst?: number;
  userAgent?: string;
  clock?: Clock;
  /**
   * Longest a request (other than a watch stream) may take, headers and body, before it is aborted with a
   * TimeoutError; a stalled connection would otherwise hold its caller forever. Default 30 s.
   */
  requestTimeoutMs?: number;
  /**
   * How long the kubeconfig's credentials (TLS files, tokens), once applied, are reused before they are applied
   * again; a 401 drops them at once. Default 10 s: client-node reads certificate files on every call otherwise.
   */
  credentialsTtlMs?: number;
  /**
   * Send every request over one multiplexed HTTP/2 connection (as client-go does) instead of a pool of HTTP/1.1
   * keep-alive connections (http1-pool.ts). Only for an `https:` server reached without a proxy; others stay on
   * HTTP/1.1.
   * Default false.
   */
  http2?: boolean;
  /** Where each request's outcome and duration are reported (client-go's rest_client metrics). */
  metrics?: RestClientMetrics;
  /**
   * Traces each request sent (one span per call, say) and adds its headers (W3C `traceparent`); none by default.
   * A request's trace covers its answer's body; a stream's only its opening, until the headers came.
   */
  tracing?: RestClientTracing;
}

/**
 * An Accept header for a write whose answer the caller reads the metadata of, or nothing: kube-apiserver answers
 * with the object's PartialObjectMetadata (its `metadata` only, less than half of a pod's JSON to encode, send,
 * decrypt and parse); a server that cannot falls back to the whole object. Refusals are `Status` either way.
 */
export const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1, application/json';

export interface KubeRequest {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  /** Accept header; JSON unless a caller relays another representation (e.g. a Table). */
  accept?: string;
  /** Aborts the request whenever it fires: while it waits for the QPS limit, or on the wire. */
  signal?: AbortSignal;
  /**
   * A request not yet sent when this fires is never sent (it rejects with the fence's reason, even after waiting
   * for the QPS limit); one already on the wire is not interrupted by it — `signal` does that. A leadership term
   * passes its end here, so nothing is written after the term ends, yet writes already made are not cut off
   * halfway with an unknown outcome.
   */
  fence?: AbortSignal;
  /**
   * The latest moment, on the client's clock, at which this request may still leave; read right before it is
   * sent (after the QPS wait and the credentials), so a leadership term can pass the renew deadline its last
   * renewal set, without relying on a timer that a busy event loop may run late. A request that could only
   * leave later is never sent: it rejects with `Fenced`.
   */
  sendBy?: () => number;
  /**
   * Sent as the `Audit-ID` header, which kube-apiserver keeps as the request's audit ID (at most 64 characters),
   * so the caller can find the request in kube-apiserver's audit; kube-apiserver makes one up when absent.
   */
  auditId?: string;
  /**
   * The trace this request is made in, as the client's tracing hook knows it (an OpenTelemetry Context, say):
   * the request's span is its child and carries it on. Undefined: not traced.
   */
  trace?: unknown;
  /** Overrides the client's request timeout for this request; `null` for none (streams the caller bounds). */
  timeoutMs?: number | null;
  /**
   * How the request meets the client's QPS limit: `normal` takes its turn; `low` (Events) waits until a token is
   * free, behind every normal request; `exempt` skips the limit: the leader Lease, so a long queue of pod writes
   * cannot make a leader miss its renewal, and requests relayed for users, who have rate limits of their own.
   */
  priority?: 'normal' | 'low' | 'exempt';
  /**
   * Sent as `Impersonate-User` and one `Impersonate-Group` per group: kube-apiserver authorizes, admits and audits
   * the request as that user (with `system:authenticated` added), once it allowed the client's own identity to
   * `impersonate` them. Only for requests made on a person's behalf; never the controller's own.
   */
  impersonate?: Impersonation;
}

/** Whom a request is sent as: a username and its groups (none: kube-apiserver adds only system:authenticated). */
export interface Impersonation {
  user: string;
  groups: readonly string[];
}

/** The impersonation headers for `who`, as kube-apiserver reads them. */
export function impersonationHeaders(who: Impersonation): Record<string, string | string[]> {
  return who.groups.length === 0
    ? { 'Impersonate-User': who.user }
    : { 'Impersonate-User': who.user, 'Impersonate-Group': [...who.groups] };
}

/** A request that was never sent because its `sendBy` moment had passed when it could have left. */
export class Fenced extends Error {
  override name = 'Fenced';

  constructor(late: number) {
    super(`not sent: ${Math.round(late)} ms past the moment it had to leave by`);
  }
}

/** What a caller that only sends requests needs of a client (a KubeClient, or one scoped to a leadership term). */
export interface KubeRequester {
  request<T>(req: KubeRequest): Promise<T>;
}

/**
 * HTTP access to the API server with the kubeconfig's credentials (loaded and applied by @kubernetes/client-node),
 * one keep-alive connection pool (http1-pool.ts; or, with `http2`, one multiplexed HTTP/2 session: see
 * http2-session.ts; or, when the kubeconfig names a proxy, client-node's proxy agent), and a client-side QPS/burst
 * limit shared by all requests.
 *
 * Written here rather than using client-node's `Watch`: that one skips malformed lines silently, drops the
 * `Status` body of a refused watch, opens a new agent per request and cannot tell us when a stream went quiet —
 * all things the reflector's guarantees depend on.
 */
export class KubeClient implements KubeRequester {
  readonly server: string;
  private readonly limiter: TokenBucket;
  private readonly userAgent: string;
  private readonly requestTimeoutMs: number;
  private readonly credentialsTtlMs: number;
  private readonly clock: Clock;
  /** How requests reach the server: undefined when the kubeconfig routes them via a proxy (client-node's agent). */
  private readonly transport: Http1Pool | Http2Session | undefined;
  private credentials: { options: Readonly<RequestOptions>; appliedAt: number } | undefined;
  private readonly metrics: RestClientMetrics | undefined;
  private readonly tracing: RestClientTracing | undefined;
  /** The server's host:port, the `host` of the metrics. */
  private readonly host: string;

  constructor(
    private readonly kubeConfig: KubeConfig,
    options: KubeClientOptions = {},
  ) {
    const cluster = kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('the kubeconfig has no current cluster');
    this.server = cluster.server.replace(/\/+$/, '');
    this.clock = options.clock ?? realClock;
    this.limiter = new TokenBucket(options.qps ?? 50, options.burst ?? 100, this.clock);
    this.userAgent = options.userAgent ?? 'nginx-control-plane';
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.credentialsTtlMs = options.credentialsTtlMs ?? 10_000;
    const origin = new URL(this.server);
    this.host = origin.host;
    this.metrics = options.metrics;
    this.tracing = options.tracing;
    if (!cluster.proxyUrl)
      this.transport =
        options.http2 && origin.protocol === 'https:'
          ? new Http2Session(origin.origin)
          : new Http1Pool(origin.origin);
  }

  /** Sends a request and decodes its JSON answer; a non-2xx answer throws KubeApiError with the server's Status. */
  async request<T>(req: KubeRequest): Promise<T> {
    const started = this.metrics && performance.now();
    try {
      await this.admit(req);
      const deadline = this.deadline(req);
      try {
        const { response, trace } = await this.send({ ...req, signal: deadline.signal }, false);
        let body: string;
        try {
          body = await readBody(response, deadline.signal);
        } catch (error) {
          trace?.ended({ error });
          throw error;
        }
        trace?.ended({ statusCode: response.statusCode! });
        if (response.statusCode! < 200 || response.statusCode! >= 300)
          throw KubeApiError.fromBody(response.statusCode!, body);
        return (body ? JSON.parse(body) : undefined) as T;
      } finally {
        deadline.clear();
      }
    } finally {
      if (started !== undefined)
        this.metrics!.requestLatency(req.method ?? 'GET', this.host, (performance.now() - started) / 1000);
    }
  }

  /**
   * Opens a streaming GET (a watch); resolves with the response once the server answered 200. Only the wait for
   * the answer's headers is bounded by the request timeout; the stream itself is the caller's to bound.
   */
  async stream(req: KubeRequest): Promise<KubeResponse> {
    const response = await this.forward({ ...req, method: 'GET' });
    if (response.statusCode !== 200)
      throw KubeApiError.fromBody(response.statusCode!, await readBody(response));
    return response;
  }

  /**
   * Sends a request and hands back the response as it came, whatever its status, for callers that relay it.
   * Like `stream`, only the wait for the headers is bounded.
   */
  async forward(req: KubeRequest): Promise<KubeResponse> {
    await this.admit(req);
    const deadline = this.deadline(req);
    try {
      return (await this.send({ ...req, signal: deadline.signal }, true)).response;
    } finally {
      deadline.clear(); // headers are in: the stream is no longer bounded by it
    }
  }

  /** Closes pooled connections and the HTTP/2 session; requests still running on them fail. */
  close(): void {
    this.transport?.close();
  }

  /** Waits for the QPS limit (unless exempt); rejects if the request's signal or fence fires before it may go. */
  private async admit(req: KubeRequest): Promise<void> {
    const { fence } = req;
    this.checkFence(req);
    if (req.priority !== 'exempt') {
      const either = fence && req.signal ? linkedSignal(req.signal, fence) : undefined;
      const signal = either?.signal ?? fence ?? req.signal;
      try {
        await (req.priority === 'low' ? this.limiter.takeWhenFree(signal) : this.limiter.take(signal));
      } finally {
        either?.dispose();
      }
    }
    this.checkFence(req);
  }

  /** Throws when the request may no longer leave: its fence fired, or its `sendBy` moment passed. */
  private checkFence(req: KubeRequest): void {
    req.fence?.throwIfAborted();
    if (!req.sendBy) return;
    const late = this.clock.now() - req.sendBy();
    if (late >= 0) throw new Fenced(late);
  }

  /**
   * The caller's signal combined with the request timeout, counted from now (after the QPS limiter, whose wait
   * is not the API server's slowness). `clear` stops the clock.
   */
  private deadline(req: KubeRequest): { signal: AbortSignal | undefined; clear: () => void } {
    const timeoutMs = req.timeoutMs === undefined ? this.requestTimeoutMs : req.timeoutMs;
    if (timeoutMs === null || !(timeoutMs > 0)) return { signal: req.signal, clear: () => {} };
    const scope = linkedSignal(req.signal);
    const timer = setTimeout(
      () =>
        scope.abort(new DOMException(`no answer from the API server within ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    );
    return {
      signal: scope.signal,
      clear: () => {
        clearTimeout(timer);
        scope.dispose();
      },
    };
  }

  /**
   * Sends the request; its trace, if traced, is ended here for a `streaming` one or when unanswered, and is
   * otherwise handed back for the caller to end once it read the answer.
   */
  private async send(
    req: KubeRequest,
    streaming: boolean,
  ): Promise<{ response: KubeResponse; trace: RequestTrace | undefined }> {
    const url = requestUrl(this.server, req.path, req.query);
    const credentials = await this.credentialOptions();
    // Applying the credentials may have taken a while (files, an exec plugin): the last check before sending.
    this.checkFence(req);
    const payload =
      req.body === undefined
        ? undefined
        : typeof req.body === 'string' || Buffer.isBuffer(req.body)
          ? req.body
          : JSON.stringify(req.body);
    const headers: Record<string, string | string[]> = {
      ...(credentials.headers as Record<string, string>),
      Accept: req.accept ?? 'application/json',
      'User-Agent': this.userAgent,
      ...(req.impersonate ? impersonationHeaders(req.impersonate) : {}),
    };
    if (req.auditId !== undefined) headers['Audit-ID'] = req.auditId;
    // A kubeconfig user with username and password: client-node leaves it to node:https's `auth` option.
    if (credentials.auth) headers.Authorization = `Basic ${Buffer.from(credentials.auth).toString('base64')}`;
    if (payload !== undefined) {
      headers['Content-Type'] = req.contentType ?? 'application/json';
      headers['Content-Length'] = String(Buffer.byteLength(payload));
    }

    const method = req.method ?? 'GET';
    const trace = this.tracing?.requestStarted({ method, url, streaming, parent: req.trace });
    if (trace) Object.assign(headers, trace.headers);
    let response: KubeResponse;
    try {
      response = this.transport
        ? await this.transport.request(
            { url, method, headers, body: payload, signal: req.signal },
            credentials,
          )
        : await this.sendViaProxy(url, { ...credentials, method, headers, signal: req.signal }, payload);
    } catch (error) {
      this.metrics?.requestResult('<error>', method, this.host);
      trace?.ended({ error });
      throw error;
    }
    this.metrics?.requestResult(String(response.statusCode), method, this.host);
    if (response.statusCode === 401) this.credentials = undefined; // expired or rotated: apply afresh
    if (streaming) trace?.ended({ statusCode: response.statusCode! });
    return { response, trace: streaming ? undefined : trace };
  }

  /** Over the proxy agent client-node made for the kubeconfig's `proxy-url` (a new one per credentials TTL). */
  private sendViaProxy(
    url: URL,
    options: RequestOptions,
    payload: string | Buffer | undefined,
  ): Promise<KubeResponse> {
    return new Promise<KubeResponse>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, options, resolve);
      // An aborted request fails with Node's generic AbortError; hand back why it was aborted (e.g. the timeout).
      const { signal } = options;
      request.on('error', (error) =>
        reject(signal?.aborted && signal.reason instanceof Error ? signal.reason : error),
      );
      request.end(payload);
    });
  }

  /** The kubeconfig's TLS options and auth headers, applied at most once per TTL. Never mutated by callers. */
  private async credentialOptions(): Promise<Readonly<RequestOptions>> {
    const now = this.clock.now();
    if (this.credentials && now - this.credentials.appliedAt < this.credentialsTtlMs)
      return this.credentials.options;
    const options: RequestOptions = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(options);
    this.credentials = { options, appliedAt: now };
    return options;
  }
}

function readBody(response: KubeResponse, signal?: AbortSignal): Promise<string> {
  const abort = () => response.destroy(signal!.reason as Error);
  signal?.addEventListener('abort', abort, { once: true });
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    response.on('data', (chunk: Buffer) => chunks.push(chunk));
    response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    response.on('error', reject);
  }).finally(() => signal?.removeEventListener('abort', abort));
}

/**
 * The URL of a request: `path` on `server`, each defined `query` parameter set over any of that name the path has.
 * Its search is written whole rather than through `url.searchParams`: a URL whose params object was touched
 * re-serializes them at every later read of its `href` or `search` (the transport's, a trace's).
 */
export function requestUrl(server: string, path: string, query: KubeRequest['query']): URL {
  const url = new URL(server + path);
  const defined = Object.entries(query ?? {}).filter(([, value]) => value !== undefined);
  if (defined.length === 0) return url;
  const params = new URLSearchParams(url.search);
  for (const [name, value] of defined) params.set(name, String(value));
  url.search = params.toString();
  return url;
}
