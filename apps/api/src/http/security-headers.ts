import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** One year, without `includeSubDomains`: the app may share its domain with sites that do not serve TLS. */
export const HSTS = 'max-age=31536000';

/**
 * The headers every response carries, API and UI alike: browsers must not guess a content type (a JSON
 * body or an audit export is never run as script or rendered as HTML), and no page of the app tells other sites
 * where it came from (paths name namespaces and Nginxes). HSTS only on a response to a request that came over
 * TLS: a browser ignores it over plain HTTP, and a plain-HTTP client has not shown that this host speaks TLS.
 * The UI's Content-Security-Policy is per page, with a nonce: apps/web/proxy.ts.
 */
export function securityHeaders({ overTls }: { overTls: boolean }): [name: string, value: string][] {
  return [
    ['X-Content-Type-Options', 'nosniff'],
    ['Referrer-Policy', 'no-referrer'],
    ...(overTls ? [['Strict-Transport-Security', HSTS] as [string, string]] : []),
  ];
}

/**
 * Sets `securityHeaders` on every response of `server`, before any handler runs: Express's routes, the
 * Next.js UI, and socket.io's polling transport, which engine.io answers itself without passing through
 * Express. Call it once the app is initialised (socket.io attached) and before it listens: engine.io replaces
 * the request listeners it finds when it attaches, and this one must come first.
 */
export function sendSecurityHeaders(server: Server): void {
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const overTls = (req.socket as Partial<TLSSocket>).encrypted === true;
    for (const [name, value] of securityHeaders({ overTls })) res.setHeader(name, value);
  });
}
