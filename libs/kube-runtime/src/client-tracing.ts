/**
 * How a KubeClient lets its caller trace each request it sends (an OpenTelemetry client span, say), without this
 * library depending on a tracing SDK: the binary binds it, as it binds `RestClientMetrics`.
 */
export interface RestClientTracing {
  /**
   * Called as a request leaves for kube-apiserver (after the QPS wait and the credentials), in the caller's async
   * context. Returns the headers to send with it (e.g. W3C `traceparent`) and the call that ends its trace.
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
}

/** The trace of one request in flight. */
export interface RequestTrace {
  /** Added to the request's headers; must not name any header the client sets itself. */
  readonly headers: Readonly<Record<string, string>>;
  /** Ends the trace, once: with the answer's HTTP status, or with the error that left the request unanswered. */
  ended(outcome: { statusCode: number } | { error: unknown }): void;
}
