/** What the policy of one UI response depends on. */
export interface ContentSecurityPolicyOptions {
  /** Fresh for every response, unguessable, base64 (see `newNonce`). */
  nonce: string;
  /**
   * The request's Host header (`host` or `host:port`), for the live connection's WebSocket URLs. A value that is
   * not a plain host name, IPv4 or bracketed IPv6 address with an optional port is left out, so a forged header
   * can never add sources or directives.
   */
  host?: string | null;
  /** Next.js development mode: React needs `eval` for its error overlay, and the overlay injects styles. */
  development?: boolean;
}

const HOST =
  /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;
const NONCE = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * The Content-Security-Policy of a UI page. Scripts run only with this response's nonce (Next.js puts it on its
 * own script tags when it finds `'nonce-…'` in the request's policy) or when loaded by such a script
 * (`'strict-dynamic'`); no inline script without the nonce, no plugin, no `<base>`, no framing by another site,
 * forms post only here, and connections go only to this origin: fetch to the API and socket.io's polling
 * (`'self'`) and its WebSocket on the same host (ws: / wss:, listed as well for browsers whose `'self'` does not
 * cover WebSockets yet). `upgrade-insecure-requests` is left out on purpose: browsers use this port over plain
 * HTTP too, and the upgrade would send their subresource requests to https:// with a certificate they may not
 * trust; HSTS (sent over TLS) does that job for sites that want it.
 */
export function contentSecurityPolicy({
  nonce,
  host,
  development = false,
}: ContentSecurityPolicyOptions): string {
  if (!NONCE.test(nonce)) throw new Error('a CSP nonce must be base64');
  const sameHostSockets = host && HOST.test(host) ? [`ws://${host}`, `wss://${host}`] : [];
  const directives: [string, ...string[]][] = [
    ['default-src', "'self'"],
    [
      'script-src',
      "'self'",
      `'nonce-${nonce}'`,
      "'strict-dynamic'",
      ...(development ? ["'unsafe-eval'"] : []),
    ],
    // <style> elements and stylesheets: our own CSS files and the styles Next.js inlines with the nonce. In
    // development the error overlay injects styles without it, so there (only) inline styles are allowed.
    ['style-src', "'self'", ...(development ? ["'unsafe-inline'"] : [`'nonce-${nonce}'`])],
    // style="…" attributes: React server-renders the `style` props of our components (progress bars,
    // virtualised row heights, column widths) as attributes. A nonce never covers an attribute, and hashes would
    // need 'unsafe-hashes' and one hash per value (the widths and heights change), so attributes alone may be
    // inline: the tightest policy the UI works with. An attribute cannot run script nor load anything beyond
    // img-src/font-src, and <style> elements, which could, stay nonce-only.
    ['style-src-attr', "'unsafe-inline'"],
    ['img-src', "'self'"],
    ['font-src', "'self'"],
    ['connect-src', "'self'", ...sameHostSockets],
    ['object-src', "'none'"],
    ['base-uri', "'none'"],
    ['form-action', "'self'"],
    ['frame-ancestors', "'none'"],
  ];
  return directives.map((directive) => directive.join(' ')).join('; ');
}

/** 128 random bits, base64: a nonce for one response. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
