import type { KubeRequester } from './client.js';

/**
 * How a KubeClient lets its caller trace each request it sends (an OpenTelemetry client span, say), without this
 * library depending on a tracing SDK: the binary binds it, as it binds `RestClientMetrics`.
 */
export interface RestClientTracing {
  /**
   * Called as a request leaves for kube-apiserver (after the QPS wait and the credentials), with the trace it was
   * made in (`KubeRequest.trace`). Returns the headers to send with it (e.g. W3C `traceparent`) and the call that
   * ends its trace.
   */
  requestStarted(request: TracedRequest): RequestTrace;
}

/** What is known of a request as it leaves. */
export interface TracedRequest {
  /** The HTTP method. */
  method: string;
  /** The full URL, query included. */
  url: URL;
  /** True for a watch or relayed stream, whose trace ends when its headers arrive, never with the stream. */
  streaming: boolean;
  /** The caller's trace (`KubeRequest.trace`), opaque here; undefined for a request made outside any. */
  parent: unknown;
}

/** The trace of one request in flight. */
export interface RequestTrace {
  /** Added to the request's headers; must not name any header the client sets itself. */
  readonly headers: Readonly<Record<string, string>>;
  /** Ends the trace, once: with the answer's HTTP status, or with the error that left the request unanswered. */
  ended(outcome: { statusCode: number } | { error: unknown }): void;
}

/**
 * `requester` with every request it sends marked as made in `trace` (`KubeRequest.trace`): what a caller hands the
 * code that works for one traced operation (a reconcile), so its requests are that operation's children. Passed
 * explicitly rather than found in an async context: Node.js 20's AsyncLocalStorage slows every promise of the
 * process by a quarter once in use.
 */
export function tracedRequester(requester: KubeRequester, trace: unknown): KubeRequester {
  return { request: (req) => requester.request({ ...req, trace }) };
}
