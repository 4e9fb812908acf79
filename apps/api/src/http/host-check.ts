import { BlockList, isIP } from 'node:net';

/**
 * Which `Host` headers the app answers, against DNS rebinding: a page on an attacker's name that resolves to this
 * server's address would otherwise talk to it from the victim's browser as its own origin.
 * - `any`: every host (the app listens on all interfaces and no ALLOWED_HOSTS were given: a cluster).
 * - `loopback`: only loopback names (the app listens on a loopback address: the default, a developer's machine).
 * - `listed`: the ALLOWED_HOSTS patterns, plus IP literals and loopback names (no attacker's page can send those:
 *   its origin would have to be the address itself), so probes and scrapers that use the pod's IP keep working.
 */
export type HostPolicy =
  { kind: 'any' } | { kind: 'loopback' } | { kind: 'listed'; patterns: readonly string[] };

/** A host name (`example.com`, `api.example.com`) or a wildcard for its subdomains (`*.example.com`). */
const HOST_PATTERN = /^(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Why an ALLOWED_HOSTS entry is not usable, or undefined when it is. */
export function hostPatternError(pattern: string): string | undefined {
  if (pattern === '*') return undefined;
  if (!HOST_PATTERN.test(pattern))
    return 'expected a host name such as app.example.com or *.example.com (no scheme, port or path)';
  return undefined;
}

const LOOPBACK_ADDRESSES = new BlockList();
LOOPBACK_ADDRESSES.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK_ADDRESSES.addAddress('::1', 'ipv6');

/** Whether `address` (an IP address, IPv4-mapped IPv6 included) is a loopback address. */
export function isLoopbackAddress(address: string | undefined): boolean {
  const family = address === undefined ? 0 : isIP(address);
  return family !== 0 && LOOPBACK_ADDRESSES.check(address!, family === 6 ? 'ipv6' : 'ipv4');
}

/** Whether a host (a name, an IP address, an IPv6 address in brackets) is reached only on this machine. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  return bare === 'localhost' || bare.endsWith('.localhost') || isLoopbackAddress(bare);
}

/** The policy for an app listening on `listenHost` with ALLOWED_HOSTS `allowedHosts` (undefined: not set). */
export function hostPolicy(allowedHosts: readonly string[] | undefined, listenHost: string): HostPolicy {
  if (allowedHosts?.includes('*')) return { kind: 'any' };
  if (allowedHosts && allowedHosts.length > 0) return { kind: 'listed', patterns: allowedHosts };
  return isLoopbackHost(listenHost) ? { kind: 'loopback' } : { kind: 'any' };
}

/** Characters a Host header may hold: a name or IPv4 address with an optional port, or a bracketed IPv6 address. */
const HOST_HEADER = /^([a-z0-9._-]+|\[[0-9a-f:.]+\])(:\d{1,5})?$/i;

/**
 * The host name a `Host` header names, normalised as the URL parser does (lower case, IPv6 in brackets, no
 * trailing dot), or undefined when the header is missing or is not a plain host with an optional port.
 */
export function hostNameOf(header: string | undefined): string | undefined {
  if (!header || !HOST_HEADER.test(header)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${header}/`);
  } catch {
    return undefined;
  }
  return url.hostname.replace(/\.$/, '') || undefined;
}

const matches = (hostname: string, pattern: string) =>
  pattern.startsWith('*.') ? hostname.endsWith(pattern.slice(1)) : hostname === pattern;

/** Whether a request with this `Host` header may be answered under `policy`. */
export function hostAllowed(header: string | undefined, policy: HostPolicy): boolean {
  if (policy.kind === 'any') return true;
  const hostname = hostNameOf(header);
  if (hostname === undefined) return false;
  if (isLoopbackHost(hostname)) return true;
  if (policy.kind === 'loopback') return false;
  const address = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(address) !== 0 || policy.patterns.some((pattern) => matches(hostname, pattern));
}
