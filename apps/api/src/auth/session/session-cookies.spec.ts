import { describe, expect, it } from 'vitest';
import { cookieValue, credentialOf, SESSION_COOKIE, sessionIdOf, setCookie } from './session-cookies.js';

const ID = 'a'.repeat(43);

describe('session cookies', () => {
  it('reads a well-formed cookie that is there once', () => {
    expect(cookieValue(`x=1; __Host-ngx-session=${ID}`, '__Host-ngx-session')).toBe(ID);
    expect(
      cookieValue(`__Host-ngx-session=${ID}; __Host-ngx-session=${ID}`, '__Host-ngx-session'),
    ).toBeUndefined();
    expect(cookieValue('__Host-ngx-session=short', '__Host-ngx-session')).toBeUndefined();
    expect(cookieValue(`__Host-ngx-session=${ID}%00`, '__Host-ngx-session')).toBeUndefined();
    expect(cookieValue(undefined, '__Host-ngx-session')).toBeUndefined();
  });

  it('takes a bearer token before the cookie, and names the cookie as a Session credential', () => {
    expect(credentialOf({ authorization: 'Bearer t', cookie: `ngx-session=${ID}` })).toBe('Bearer t');
    expect(credentialOf({ cookie: `ngx-session=${ID}` })).toBe(`Session ${ID}`);
    expect(sessionIdOf(`Session ${ID}`)).toBe(ID);
    expect(sessionIdOf('Bearer x')).toBeUndefined();
    expect(credentialOf({})).toBeUndefined();
  });

  it('sets HttpOnly SameSite=Lax cookies, Secure and __Host- over TLS, deleted with Max-Age=0', () => {
    expect(setCookie(SESSION_COOKIE, ID, { secure: true, maxAgeSeconds: 60.7 })).toBe(
      `__Host-ngx-session=${ID}; Path=/; Max-Age=60; HttpOnly; SameSite=Lax; Secure`,
    );
    expect(setCookie(SESSION_COOKIE, '', { secure: false, maxAgeSeconds: -1 })).toBe(
      'ngx-session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax',
    );
  });
});
