import type { PeerCertificate, TLSSocket } from 'node:tls';

/** What the connection a request came on knows of the client's certificate (a TLS socket, or the HTTP/2 bridge's). */
interface CertificateFacts {
  encrypted?: boolean;
  authorized?: boolean;
  getPeerCertificate?: () => PeerCertificate | Record<string, never>;
}

/**
 * The client certificate a request was made with: `none` when it showed none (or came over plain HTTP),
 * `untrusted` when it showed one the server's client CA did not verify, else the verified certificate's common
 * name. The TLS server asks for certificates without requiring them (requestCert, rejectUnauthorized false), so
 * every route but those that check this one goes on as before.
 */
export function clientCertificate(
  socket: unknown,
): { kind: 'none' } | { kind: 'untrusted' } | { kind: 'verified'; commonName: string } {
  const facts = socket as CertificateFacts & Partial<TLSSocket>;
  if (!facts.encrypted || typeof facts.getPeerCertificate !== 'function') return { kind: 'none' };
  const certificate = facts.getPeerCertificate();
  if (!certificate || Object.keys(certificate).length === 0) return { kind: 'none' };
  if (!facts.authorized) return { kind: 'untrusted' };
  const commonName = (certificate as PeerCertificate).subject?.CN;
  return typeof commonName === 'string' ? { kind: 'verified', commonName } : { kind: 'untrusted' };
}
