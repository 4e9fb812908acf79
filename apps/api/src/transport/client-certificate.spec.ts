import { describe, expect, it } from 'vitest';
import { clientCertificate } from './client-certificate.js';

const socket = (authorized: boolean, certificate: object) => ({
  encrypted: true,
  authorized,
  getPeerCertificate: () => certificate,
});

describe('clientCertificate', () => {
  it('tells none, an unverified one and a verified one apart', () => {
    expect(clientCertificate({ encrypted: false })).toEqual({ kind: 'none' });
    expect(clientCertificate({})).toEqual({ kind: 'none' });
    expect(clientCertificate(socket(false, {}))).toEqual({ kind: 'none' });
    expect(clientCertificate(socket(false, { subject: { CN: 'kube-apiserver-audit' } }))).toEqual({
      kind: 'untrusted',
    });
    expect(clientCertificate(socket(true, { subject: { CN: 'kube-apiserver-audit' } }))).toEqual({
      kind: 'verified',
      commonName: 'kube-apiserver-audit',
    });
    // A verified certificate without one common name names nobody.
    expect(clientCertificate(socket(true, { subject: { CN: ['a', 'b'] } }))).toEqual({ kind: 'untrusted' });
  });
});
