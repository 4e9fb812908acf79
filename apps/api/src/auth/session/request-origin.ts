import type { IncomingHttpHeaders } from 'node:http';

/**
 * Why a request authenticated by its session cookie is not taken as this site's own, or undefined when it is.
 * A browser names the page that sent a cross-site request in `Origin` (on every POST, PUT, PATCH and DELETE, and
 * on WebSocket handshakes) and says `Sec-Fetch-Site: cross-site`; a request naming neither comes from no browser
 * page, so no other site's. The host compared is the one the request was sent to (which ALLOWED_HOSTS vets).
 */
export function crossSiteRefusal(headers: IncomingHttpHeaders): string | undefined {
  const host = headers.host;
  const origin = headers.origin;
  if (origin !== undefined) {
    let originHost: string;
    try {
      originHost = new URL(origin).host;
    } catch {
      return `the request's Origin ${origin} is not a URL`;
    }
    if (origin === 'null' || originHost !== host)
      return `a request from ${origin} may not use this site's session (cross-site)`;
  }
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none')
    return `a ${String(site)} request may not use this site's session`;
  return undefined;
}
