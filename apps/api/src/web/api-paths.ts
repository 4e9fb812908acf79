/**
 * Path prefixes the NestJS API owns on the shared origin. Every other path is the web UI's (Next.js).
 * Kept in one list so the API, the UI and the tests agree on the split.
 */
export const API_PATH_PREFIXES = [
  '/apis',
  '/api',
  '/controlplane',
  '/healthz',
  '/readyz',
  '/metrics',
  '/version',
  '/openapi',
  '/socket.io',
] as const;

export function isApiPath(path: string): boolean {
  return API_PATH_PREFIXES.some(
    (prefix) => path === prefix || path.startsWith(`${prefix}/`) || path.startsWith(`${prefix}.`),
  );
}
