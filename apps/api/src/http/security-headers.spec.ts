import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HSTS, securityHeaders, sendSecurityHeaders } from './security-headers.js';

describe('securityHeaders', () => {
  it('forbids content sniffing and referrers on every response', () => {
    expect(securityHeaders({ overTls: false })).toEqual([
      ['X-Content-Type-Options', 'nosniff'],
      ['Referrer-Policy', 'no-referrer'],
    ]);
  });

  it('adds HSTS only to responses to requests that came over TLS', () => {
    expect(new Map(securityHeaders({ overTls: true })).get('Strict-Transport-Security')).toBe(HSTS);
    expect(new Map(securityHeaders({ overTls: false })).has('Strict-Transport-Security')).toBe(false);
    expect(HSTS).toMatch(/^max-age=\d{8,}$/);
  });
});

describe('sendSecurityHeaders', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
    server = createServer(handler);
    sendSecurityHeaders(server);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('sets them before handlers that were there first, even ones answering with writeHead', async () => {
    const url = await serve((_, res) => {
      res.writeHead(400, { 'Content-Type': 'application/json' });
      res.end('{"code":400,"message":"Transport unknown"}');
    });
    const response = await fetch(`${url}/socket.io/?EIO=4&transport=carrier-pigeon`);
    expect(response.status).toBe(400);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(response.headers.get('strict-transport-security')).toBeNull();
  });
});
