import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './app-config.js';
import { oidcSettings } from './oidc-settings.js';

const ISSUER = 'https://dex.example.test:5556/dex';

describe('oidcSettings', () => {
  it('is off without OIDC_ISSUER_URL, and defaults as kube-apiserver’s --oidc-* flags do', () => {
    expect(oidcSettings({})).toBeUndefined();
    expect(oidcSettings({ OIDC_ISSUER_URL: ISSUER, OIDC_CLIENT_ID: 'ngx' })).toMatchObject({
      issuerUrl: ISSUER,
      clientId: 'ngx',
      usernameClaim: 'sub',
      usernamePrefix: `${ISSUER}#`,
      groupsPrefix: '',
      signingAlgorithms: ['RS256'],
      clockSkewSeconds: 30,
      scopes: ['openid', 'profile', 'email', 'groups', 'offline_access'],
    });
    const env = { OIDC_ISSUER_URL: ISSUER, OIDC_CLIENT_ID: 'ngx' };
    expect(oidcSettings({ ...env, OIDC_USERNAME_CLAIM: 'email' })?.usernamePrefix).toBe('');
    expect(oidcSettings({ ...env, OIDC_USERNAME_PREFIX: '-' })?.usernamePrefix).toBe('');
    expect(oidcSettings({ ...env, OIDC_USERNAME_PREFIX: 'oidc:' })?.usernamePrefix).toBe('oidc:');
    expect(oidcSettings({ ...env, OIDC_SIGNING_ALGS: 'RS256, ES256' })?.signingAlgorithms).toEqual([
      'RS256',
      'ES256',
    ]);
  });

  it('reads the client secret and the CA from files, and refuses what kube-apiserver would', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ngx-oidc-'));
    writeFileSync(join(dir, 'secret'), 's3cret\n');
    const env = { OIDC_ISSUER_URL: ISSUER, OIDC_CLIENT_ID: 'ngx' };
    expect(oidcSettings({ ...env, OIDC_CLIENT_SECRET_FILE: 'secret' }, dir)?.clientSecret).toBe('s3cret');
    const bad: Record<string, string | undefined>[] = [
      { OIDC_ISSUER_URL: 'http://dex.example.test', OIDC_CLIENT_ID: 'ngx' },
      { OIDC_ISSUER_URL: 'not a url', OIDC_CLIENT_ID: 'ngx' },
      { OIDC_ISSUER_URL: ISSUER },
      { ...env, OIDC_SIGNING_ALGS: 'none' },
      { ...env, OIDC_SIGNING_ALGS: 'HS256' },
      { ...env, OIDC_CLOCK_SKEW_SECONDS: '3600' },
      { ...env, OIDC_CA_FILE: 'missing.pem' },
    ];
    for (const each of bad) expect(() => oidcSettings(each, dir)).toThrow(ConfigError);
  });

  it('takes the UI sign-in’s redirect URL and session lifetime, and refuses bad ones', () => {
    const env = { OIDC_ISSUER_URL: ISSUER, OIDC_CLIENT_ID: 'ngx' };
    expect(oidcSettings(env)).toMatchObject({ sessionMaxAgeSeconds: 28_800 });
    expect(oidcSettings(env)).not.toHaveProperty('redirectUrl');
    expect(
      oidcSettings({ ...env, OIDC_REDIRECT_URL: 'https://cp.example/controlplane/v1/auth/callback' })
        ?.redirectUrl,
    ).toBe('https://cp.example/controlplane/v1/auth/callback');
    expect(() => oidcSettings({ ...env, OIDC_REDIRECT_URL: 'http://cp.example/cb' })).toThrow(/https/);
    expect(() => oidcSettings({ ...env, OIDC_REDIRECT_URL: 'not a url' })).toThrow(/not a URL/);
    expect(() => oidcSettings({ ...env, SESSION_MAX_AGE_SECONDS: '1e9' })).toThrow(/SESSION_MAX_AGE_SECONDS/);
  });
});
