import { NextResponse, type NextRequest } from 'next/server';
import { contentSecurityPolicy, newNonce } from './lib/security/content-security-policy';

/**
 * Gives every page response a Content-Security-Policy with a fresh nonce. The policy goes on the request too:
 * Next.js reads the nonce from the request's `Content-Security-Policy` while rendering and puts it on its own
 * scripts, which is why every page is rendered per request (see `connection()` in app/layout.tsx).
 * X-Content-Type-Options, Referrer-Policy and HSTS are set for every response, the API's included, by the
 * server in front (apps/api/src/http/security-headers.ts).
 */
export function proxy(request: NextRequest) {
  const policy = contentSecurityPolicy({
    nonce: newNonce(),
    host: request.headers.get('host'),
    development: process.env.NODE_ENV === 'development',
  });
  const headers = new Headers(request.headers);
  headers.set('Content-Security-Policy', policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set('Content-Security-Policy', policy);
  return response;
}

export const config = {
  matcher: [
    {
      // Not the build's static files (no HTML in them) nor prefetches of RSC payloads (not documents).
      source: '/((?!_next/static|_next/image|favicon.ico).*)',
      missing: [
        { type: 'header', key: 'next-router-prefetch' },
        { type: 'header', key: 'purpose', value: 'prefetch' },
      ],
    },
  ],
};
