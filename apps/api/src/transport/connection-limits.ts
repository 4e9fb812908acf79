import type { Server } from 'node:http';

/**
 * How long a client may take over each step before it sends a complete request; beyond that its connection is
 * closed, so connections that trickle bytes or send nothing (slowloris) cannot pile up. None of them limits what
 * happens after the request is in: watch streams and socket.io connections stay open as long as they like.
 */
export interface ConnectionLimits {
  /**
   * From accept to the first byte, on a port that also answers TLS (the first byte tells TLS from plain HTTP, so
   * nothing else reads the connection before it). 10 s: browsers open connections ahead of need and keep an
   * unused one about that long before they send on it or close it.
   */
  firstByteMs: number;
  /** From the first byte to the end of the TLS handshake (Node's default is 120 s). */
  tlsHandshakeMs: number;
  /**
   * From the start of a request (or from the connection's hand-over to HTTP) to the end of its headers
   * (Node's `server.headersTimeout`, default 60 s); answered 408 and closed.
   */
  headersMs: number;
  /**
   * From the start of a request to the end of its body (Node's `server.requestTimeout`, default 300 s): request
   * bodies are at most 1 MiB here, so a minute is ample. Responses, however long, are not counted.
   */
  requestMs: number;
  /**
   * How often Node checks the two bounds above (`connectionsCheckingInterval`, default 30 s, which would let a
   * connection outlive its bound by that much).
   */
  checkIntervalMs: number;
}

export const CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  firstByteMs: 10_000,
  tlsHandshakeMs: 10_000,
  headersMs: 20_000,
  requestMs: 60_000,
  checkIntervalMs: 1_000,
});

/**
 * Sets the header and request bounds on `server`. Call before `listen`: Node reads the checking interval when the
 * server starts listening. They apply to every connection the server's own `connection` listener takes in,
 * including those handed to it after the TLS handshake (see tls-on-same-port.ts).
 */
export function applyConnectionLimits(
  server: Server,
  limits: Readonly<ConnectionLimits> = CONNECTION_LIMITS,
): void {
  server.headersTimeout = limits.headersMs;
  server.requestTimeout = limits.requestMs;
  // A public property read when listening starts, though @types/node lists it only as a constructor option.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    limits.checkIntervalMs;
}
