/**
 * Where to go after signing in, from the sign-in page's `next` parameter: a path on `origin` (the page's own,
 * `location.origin`), as the URL parser normalised it, or "/" for anything else.
 *
 * The check is made on what the browser will navigate to, not on the raw text: the parser drops tabs and line
 * breaks and reads `\` as `/`, so `/\t/evil.example` and `/\evil.example` are `//evil.example`, another host.
 * Only text that already is a path (starts with `/`) is considered. A normalised path that starts with `//`
 * (`/.//evil.example`) is refused too, because as a link it would name a host, and so is one that would do so
 * once something on the way decodes it (`/%09/evil.example`, `/%2F/evil.example`): the UI's own paths never
 * start with an encoded slash nor hold control characters. The sign-in page is never a destination.
 */
export function safeNextPath(next: string | null | undefined, origin: string): string {
  if (!next?.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, origin);
  } catch {
    return '/';
  }
  if (url.origin !== new URL(origin).origin) return '/';
  const { pathname, search, hash } = url;
  const decoded = decodedOnce(pathname);
  if (decoded === undefined || mayNameAHost(pathname) || mayNameAHost(decoded)) return '/';
  if (pathname === '/sign-in' || pathname.startsWith('/sign-in/')) return '/';
  return pathname + search + hash;
}

// eslint-disable-next-line no-control-regex -- control characters (C0 and DEL) are what this looks for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** Would a URL parser read this path as `//host` (a slash doubled, a backslash, a tab or line break dropped)? */
function mayNameAHost(path: string): boolean {
  return path.startsWith('//') || path.startsWith('/\\') || CONTROL_CHARACTER.test(path);
}

function decodedOnce(path: string): string | undefined {
  try {
    return decodeURIComponent(path);
  } catch {
    return undefined; // a malformed escape: not one of the UI's paths
  }
}
