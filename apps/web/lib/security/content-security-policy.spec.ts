import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, newNonce } from './content-security-policy';

const NONCE = 'cmFuZG9tLW5vbmNlLTEyMw==';

/** The policy as a map of directive → sources. */
function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy.split('; ').map((directive) => {
      const [name = '', ...sources] = directive.split(' ');
      return [name, sources];
    }),
  );
}

describe('contentSecurityPolicy', () => {
  const policy = directives(contentSecurityPolicy({ nonce: NONCE, host: '127.0.0.1:3000' }));

  it('runs only scripts carrying the nonce or loaded by them: no inline script, no eval', () => {
    expect(policy.get('script-src')).toEqual(["'self'", `'nonce-${NONCE}'`, "'strict-dynamic'"]);
  });

  it('allows <style> elements only with the nonce, and style attributes (React renders them)', () => {
    expect(policy.get('style-src')).toEqual(["'self'", `'nonce-${NONCE}'`]);
    expect(policy.get('style-src-attr')).toEqual(["'unsafe-inline'"]);
  });

  it('forbids framing, plugins and <base>, and sends forms only here', () => {
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('form-action')).toEqual(["'self'"]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
  });

  it("connects only to this origin and its WebSockets (socket.io's)", () => {
    expect(policy.get('connect-src')).toEqual(["'self'", 'ws://127.0.0.1:3000', 'wss://127.0.0.1:3000']);
    expect(
      directives(contentSecurityPolicy({ nonce: NONCE, host: '[::1]:3000' })).get('connect-src'),
    ).toEqual(["'self'", 'ws://[::1]:3000', 'wss://[::1]:3000']);
    expect(
      directives(contentSecurityPolicy({ nonce: NONCE, host: 'nginx.example.com' })).get('connect-src'),
    ).toEqual(["'self'", 'ws://nginx.example.com', 'wss://nginx.example.com']);
  });

  it.each([
    ['no Host header', undefined],
    ['an empty one', ''],
    ['one adding a source', 'a.example https://evil.example'],
    ['one adding a directive', "a.example; script-src 'unsafe-inline'"],
    ['one with a path', 'a.example/x'],
    ['one with credentials', 'user@a.example'],
  ])('keeps connect-src to this origin alone with %s', (_, host) => {
    const policy = contentSecurityPolicy({ nonce: NONCE, host });
    expect(directives(policy).get('connect-src')).toEqual(["'self'"]);
    expect(policy).not.toContain('evil');
    expect(policy).not.toContain('unsafe-inline;');
  });

  it('has no upgrade-insecure-requests (the port also serves plain HTTP)', () => {
    expect(policy.has('upgrade-insecure-requests')).toBe(false);
  });

  it("allows eval and inline styles in development only (React's overlay needs them)", () => {
    const development = directives(contentSecurityPolicy({ nonce: NONCE, development: true }));
    expect(development.get('script-src')).toContain("'unsafe-eval'");
    expect(development.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    expect(policy.get('script-src')).not.toContain("'unsafe-eval'");
  });

  it.each(["abc'; script-src *", 'a b', ''])('refuses a nonce that is not base64: %j', (nonce) => {
    expect(() => contentSecurityPolicy({ nonce })).toThrow(/base64/);
  });
});

describe('newNonce', () => {
  it('is 128 random bits in base64, different every time', () => {
    const nonces = new Set(Array.from({ length: 100 }, newNonce));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) {
      expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
      expect(() => contentSecurityPolicy({ nonce })).not.toThrow();
    }
  });
});
