/**
 * What a KubeClient reports of its requests, as client-go reports through its `tools/metrics` hooks (bound to
 * rest_client_requests_total and rest_client_request_duration_seconds by the binary, never here).
 */
export interface RestClientMetrics {
  /**
   * A request left and got an answer, `code` being its HTTP status ("200", "409", …), or got none: "<error>"
   * (refused, reset, timed out). Watches and relayed requests count too. `method` is the HTTP method.
   */
  requestResult(code: string, method: string, host: string): void;
  /**
   * Seconds one request took, from the call (the QPS limiter's wait included, as client-go measures it) until its
   * answer was read or it failed; not for watches and relayed streams, whose length is their caller's. `verb` is the
   * HTTP method.
   */
  requestLatency(verb: string, host: string, seconds: number): void;
}
