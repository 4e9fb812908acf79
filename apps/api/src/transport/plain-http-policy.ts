/**
 * What plain HTTP gets when the port also answers TLS (PLAIN_HTTP):
 * - `redirect`: nothing but `/healthz`; reads are redirected to https, anything else is refused.
 * - `allow-loopback` (the default): served as before to clients on this machine (the browser, the tests and
 *   `curl http://127.0.0.1:3000` of a developer), redirected or refused for everyone else.
 * - `allow`: always served (behind a proxy that terminates TLS itself and talks plain HTTP to the app).
 * Without TLS there is nothing to redirect to, and every policy serves plain HTTP.
 */
export const PLAIN_HTTP_POLICIES = ['redirect', 'allow-loopback', 'allow'] as const;
export type PlainHttpPolicy = (typeof PLAIN_HTTP_POLICIES)[number];

export function isPlainHttpPolicy(value: string): value is PlainHttpPolicy {
  return (PLAIN_HTTP_POLICIES as readonly string[]).includes(value);
}

/** What the app knows about one request when it decides. */
export interface PlainHttpRequest {
  /** The port answers TLS (TLS_CERT_FILE, or the local cluster's certificate). */
  tlsConfigured: boolean;
  /** This request came over TLS. */
  encrypted: boolean;
  /** The peer's address is a loopback address. */
  fromLoopback: boolean;
  method: string;
  /** The request target as sent (`/path?query`). */
  url: string;
  /** The Host header when it is a host with an optional port (see hostNameOf in host-check.ts), else undefined. */
  host: string | undefined;
}

export type PlainHttpVerdict =
  { action: 'serve' } | { action: 'redirect'; location: string } | { action: 'refuse'; message: string };

/** Paths plain HTTP always reaches: liveness probes and checks that cannot follow a redirect. */
const ALWAYS_PLAIN = new Set(['/healthz']);

const pathOf = (url: string) => url.split('?', 1)[0]!;

export function plainHttpVerdict(request: PlainHttpRequest, policy: PlainHttpPolicy): PlainHttpVerdict {
  if (!request.tlsConfigured || request.encrypted || policy === 'allow') return { action: 'serve' };
  if (policy === 'allow-loopback' && request.fromLoopback) return { action: 'serve' };
  if (ALWAYS_PLAIN.has(pathOf(request.url))) return { action: 'serve' };
  const host = request.host;
  // Only an origin-form target (`/path`) names a path on this host; a proxy's absolute form is not redirected.
  const target = host && request.url.startsWith('/') ? `https://${host}${request.url}` : undefined;
  if (target && (request.method === 'GET' || request.method === 'HEAD'))
    return { action: 'redirect', location: target };
  return {
    action: 'refuse',
    message: `this server accepts ${request.method} only over TLS: use ${target ?? 'https://'}`,
  };
}
