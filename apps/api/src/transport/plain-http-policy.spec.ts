import { describe, expect, it } from 'vitest';
import { plainHttpVerdict, type PlainHttpRequest } from './plain-http-policy.js';

const plain: PlainHttpRequest = {
  tlsConfigured: true,
  encrypted: false,
  fromLoopback: false,
  method: 'GET',
  url: '/apis/mycompany.com/v1/nginxes?watch=true',
  host: 'cp.example.com:3000',
};

describe('plainHttpVerdict', () => {
  it('redirects a remote plain GET or HEAD to https on the same host, port, path and query (308)', () => {
    for (const method of ['GET', 'HEAD'])
      expect(plainHttpVerdict({ ...plain, method }, 'redirect')).toEqual({
        action: 'redirect',
        location: 'https://cp.example.com:3000/apis/mycompany.com/v1/nginxes?watch=true',
      });
    expect(plainHttpVerdict(plain, 'allow-loopback')).toMatchObject({ action: 'redirect' });
  });

  it('refuses other methods over plain HTTP, saying to use https', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
      expect(plainHttpVerdict({ ...plain, method, url: '/apis' }, 'redirect')).toEqual({
        action: 'refuse',
        message: `this server accepts ${method} only over TLS: use https://cp.example.com:3000/apis`,
      });
  });

  it('always serves /healthz, with or without a query', () => {
    expect(plainHttpVerdict({ ...plain, url: '/healthz' }, 'redirect')).toEqual({ action: 'serve' });
    expect(plainHttpVerdict({ ...plain, url: '/healthz?x=1', method: 'POST' }, 'redirect')).toEqual({
      action: 'serve',
    });
    expect(plainHttpVerdict({ ...plain, url: '/healthzz' }, 'redirect')).toMatchObject({
      action: 'redirect',
    });
    expect(plainHttpVerdict({ ...plain, url: '/readyz' }, 'redirect')).toMatchObject({ action: 'redirect' });
  });

  it('by default (allow-loopback) serves plain HTTP from this machine: the browser, the tests, npm start', () => {
    const local = { ...plain, fromLoopback: true, host: '127.0.0.1:3000' };
    expect(plainHttpVerdict(local, 'allow-loopback')).toEqual({ action: 'serve' });
    expect(plainHttpVerdict({ ...local, method: 'POST' }, 'allow-loopback')).toEqual({ action: 'serve' });
    expect(plainHttpVerdict(local, 'redirect')).toMatchObject({ action: 'redirect' });
  });

  it('serves everything over TLS, and everything when TLS is off or plain HTTP is allowed', () => {
    expect(plainHttpVerdict({ ...plain, encrypted: true }, 'redirect')).toEqual({ action: 'serve' });
    expect(plainHttpVerdict({ ...plain, tlsConfigured: false }, 'redirect')).toEqual({ action: 'serve' });
    expect(plainHttpVerdict({ ...plain, method: 'DELETE' }, 'allow')).toEqual({ action: 'serve' });
  });

  it('does not redirect without a usable Host or with a proxy-style absolute target: it refuses', () => {
    expect(plainHttpVerdict({ ...plain, host: undefined }, 'redirect')).toEqual({
      action: 'refuse',
      message: 'this server accepts GET only over TLS: use https://',
    });
    expect(plainHttpVerdict({ ...plain, url: 'http://elsewhere.example/x' }, 'redirect')).toMatchObject({
      action: 'refuse',
    });
    expect(plainHttpVerdict({ ...plain, url: '*', method: 'OPTIONS' }, 'redirect')).toMatchObject({
      action: 'refuse',
    });
  });
});
