import type { IncomingHttpHeaders } from 'node:http';

/**
 * The browser session's cookie. Over TLS it is `__Host-ngx-session` (the browser then insists on `Secure`,
 * `Path=/` and no `Domain`, so no subdomain can set or shadow it); over plain HTTP (local development)
 * `ngx-session`. Its value is a random session id, nothing a script could use elsewhere.
 */
export const SESSION_COOKIE = { secure: '__Host-ngx-session', plain: 'ngx-session' } as const;
/** Binds a sign-in under way to the browser that started it (its value's digest is kept with the state). */
export const SIGN_IN_COOKIE = { secure: '__Host-ngx-sign-in', plain: 'ngx-sign-in' } as const;

/** How an Authorization value carries a session id inside the server (never sent by a client). */
const SESSION_SCHEME = 'Session';

/** The value of cookie `name` in a Cookie header, if it is there once and well-formed. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  const values = header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.startsWith(`${name}=`))
    .map((part) => part.slice(name.length + 1));
  // Two cookies of one name (one planted by a sibling site over HTTP): trust neither.
  if (values.length !== 1) return undefined;
  return /^[A-Za-z0-9_-]{16,128}$/.test(values[0]!) ? values[0] : undefined;
}

/**
 * The credential a request carries, as an Authorization value: its own `Authorization` header (a bearer token)
 * if it has one, else its session cookie as `Session <id>`. A request with a bearer token is never taken as
 * its cookie's session.
 */
export function credentialOf(headers: IncomingHttpHeaders): string | undefined {
  if (headers.authorization) return headers.authorization;
  const id =
    cookieValue(headers.cookie, SESSION_COOKIE.secure) ?? cookieValue(headers.cookie, SESSION_COOKIE.plain);
  return id ? `${SESSION_SCHEME} ${id}` : undefined;
}

/** The session id of a credential from credentialOf, when it is a session's. */
export function sessionIdOf(credential: string | undefined): string | undefined {
  return /^Session ([A-Za-z0-9_-]+)$/.exec(credential ?? '')?.[1];
}

/** A Set-Cookie value: HttpOnly always, SameSite=Lax, Secure over TLS; `maxAgeSeconds` 0 deletes it. */
export function setCookie(
  names: { secure: string; plain: string },
  value: string,
  options: { secure: boolean; maxAgeSeconds: number },
): string {
  const name = options.secure ? names.secure : names.plain;
  return [
    `${name}=${value}`,
    'Path=/',
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    'HttpOnly',
    'SameSite=Lax',
    ...(options.secure ? ['Secure'] : []),
  ].join('; ');
}
