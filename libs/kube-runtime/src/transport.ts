import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { ConnectionOptions } from 'node:tls';

/**
 * An answer of the API server as a body stream, with its status and headers (lower-case names, no HTTP/2
 * pseudo-headers such as `:status`). Destroying it gives the connection or stream up.
 */
export interface KubeResponse extends Readable {
  readonly statusCode?: number | undefined;
  readonly headers: IncomingHttpHeaders;
}

/** One request as a transport sends it: the client has applied credentials, query and body encoding. */
export interface TransportRequest {
  url: URL;
  method: string;
  /** A list is sent as one header line per value (Impersonate-Group). */
  headers: Record<string, string | string[]>;
  body?: string | Buffer;
  /** Aborts the request whenever it fires, before or after the headers came; rejections carry its reason. */
  signal?: AbortSignal;
}

/** The TLS material connections are opened with (the kubeconfig's, as client-node applies it). */
export type TransportTls = Pick<
  ConnectionOptions,
  'ca' | 'cert' | 'key' | 'pfx' | 'passphrase' | 'servername' | 'rejectUnauthorized'
>;

const TLS_FIELDS = ['ca', 'cert', 'key', 'pfx', 'passphrase', 'servername', 'rejectUnauthorized'] as const;

/** Only the TLS fields of a wider options object (the kubeconfig's applied HTTPS options carry headers too). */
export function tlsOf(options: TransportTls): TransportTls {
  const { ca, cert, key, pfx, passphrase, servername, rejectUnauthorized } = options;
  return { ca, cert, key, pfx, passphrase, servername, rejectUnauthorized };
}

/** Whether two applications of the kubeconfig carry the same TLS material (files re-read give equal contents). */
export function sameTls(a: TransportTls, b: TransportTls): boolean {
  return TLS_FIELDS.every((field) => a[field] === b[field] || String(a[field]) === String(b[field]));
}

/** Why a signal fired, as an Error: its reason, or a plain AbortError when it has none. */
export function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new DOMException('This operation was aborted', 'AbortError');
}
