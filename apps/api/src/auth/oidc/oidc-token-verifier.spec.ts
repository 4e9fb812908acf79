import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OidcSettings } from '../../config/oidc-settings.js';
import {
  MAX_GROUPS,
  OidcTokenVerifier,
  ProviderUnavailableError,
  TokenRefusedError,
  type Fetch,
} from './oidc-token-verifier.js';

const ISSUER = 'https://idp.example.test/dex';
const settings = (overrides: Partial<OidcSettings> = {}): OidcSettings => ({
  issuerUrl: ISSUER,
  clientId: 'nginx-control-plane',
  scopes: ['openid'],
  usernameClaim: 'sub',
  usernamePrefix: `${ISSUER}#`,
  groupsClaim: 'groups',
  groupsPrefix: 'oidc:',
  signingAlgorithms: ['RS256'],
  clockSkewSeconds: 30,
  jwksCacheSeconds: 300,
  sessionMaxAgeSeconds: 28_800,
  ...overrides,
});

type Keys = Awaited<ReturnType<typeof generateKeyPair>>;
let first: Keys;
let second: Keys;
let firstJwk: JWK;
let secondJwk: JWK;

beforeAll(async () => {
  first = await generateKeyPair('RS256', { extractable: true });
  second = await generateKeyPair('RS256', { extractable: true });
  firstJwk = { ...(await exportJWK(first.publicKey)), kid: 'first', alg: 'RS256', use: 'sig' };
  secondJwk = { ...(await exportJWK(second.publicKey)), kid: 'second', alg: 'RS256', use: 'sig' };
});

/** An identity provider in memory: its discovery document and key set, what it publishes changeable, down at will. */
function provider(published: () => JWK[]) {
  const state = { down: false, issuer: ISSUER, fetches: 0 };
  const fetch: Fetch = async (url) => {
    state.fetches++;
    if (state.down) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    const body =
      url === `${ISSUER}/.well-known/openid-configuration`
        ? { issuer: state.issuer, jwks_uri: `${ISSUER}/keys` }
        : url === `${ISSUER}/keys`
          ? { keys: published() }
          : undefined;
    return {
      ok: body !== undefined,
      status: body ? 200 : 404,
      json: async () => body,
      headers: new Headers({ 'content-type': 'application/json' }),
    } as unknown as Awaited<ReturnType<Fetch>>;
  };
  return { fetch, state };
}

const now = () => Math.floor(Date.now() / 1000);

function token(claims: JWTPayload = {}, key: Keys = first, kid = 'first', alg = 'RS256') {
  const defaults = {
    sub: 'alice-id',
    groups: ['platform', 'team-a'],
    email: 'alice@example.test',
    iss: ISSUER,
    aud: 'nginx-control-plane',
    iat: now(),
    exp: now() + 300,
  };
  return new SignJWT({ ...defaults, ...claims }).setProtectedHeader({ alg, kid }).sign(key.privateKey);
}

const refusal = async (verifier: OidcTokenVerifier, jwt: string) => {
  const error = await verifier.verify(jwt).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TokenRefusedError);
  return (error as Error).message;
};

describe('OidcTokenVerifier', () => {
  it('names the person by the configured claims and prefixes, as kube-apiserver would', async () => {
    const verifier = new OidcTokenVerifier(settings(), provider(() => [firstJwk]).fetch);
    expect(await verifier.verify(await token())).toEqual({
      username: `${ISSUER}#alice-id`,
      groups: ['oidc:platform', 'oidc:team-a'],
      email: 'alice@example.test',
      authenticatedBy: 'oidc',
    });
    const byEmail = new OidcTokenVerifier(
      settings({ usernameClaim: 'email', usernamePrefix: '', groupsPrefix: '' }),
      provider(() => [firstJwk]).fetch,
    );
    expect(await byEmail.verify(await token({ groups: 'platform' }))).toMatchObject({
      username: 'alice@example.test',
      groups: ['platform'],
    });
    expect(await refusal(byEmail, await token({ email_verified: false }))).toMatch(/not verified/);
  });

  it('refuses a token that is expired, not yet valid, for another audience or issuer, or without exp', async () => {
    const verifier = new OidcTokenVerifier(settings(), provider(() => [firstJwk]).fetch);
    expect(await refusal(verifier, await token({ exp: now() - 60 }))).toMatch(/expired/);
    expect(await verifier.verify(await token({ exp: now() - 10 }))).toBeTruthy(); // within the 30 s skew
    expect(await refusal(verifier, await token({ nbf: now() + 120 }))).toMatch(/nbf/);
    expect(await refusal(verifier, await token({ aud: 'another-client' }))).toMatch(/aud/);
    expect(await refusal(verifier, await token({ iss: 'https://evil.example.test' }))).toMatch(/iss/);
    const noExp = await new SignJWT({ sub: 'alice-id' })
      .setProtectedHeader({ alg: 'RS256', kid: 'first' })
      .setIssuer(ISSUER)
      .setAudience('nginx-control-plane')
      .sign(first.privateKey);
    expect(await refusal(verifier, noExp)).toMatch(/exp/);
  });

  it('refuses alg none, HMAC, a tampered payload and a key the provider does not publish', async () => {
    const verifier = new OidcTokenVerifier(settings(), provider(() => [firstJwk]).fetch);
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const claims = { sub: 'alice-id', iss: ISSUER, aud: 'nginx-control-plane', exp: now() + 300 };
    expect(await refusal(verifier, `${encode({ alg: 'none' })}.${encode(claims)}.`)).toMatch(/algorithm/);
    const hmac = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', kid: 'first' })
      .sign(new TextEncoder().encode('a shared secret of at least 32 bytes!!'));
    expect(await refusal(verifier, hmac)).toMatch(/algorithm/);
    const [header, , signature] = (await token()).split('.');
    const tampered = `${header}.${encode({ ...claims, sub: 'admin' })}.${signature}`;
    expect(await refusal(verifier, tampered)).toMatch(/signature/);
    expect(await refusal(verifier, await token({}, second, 'second'))).toMatch(/does not publish/);
  });

  it('picks up a new key when a token names it, and stops taking a rotated-out key once the key set is stale', async () => {
    let published = [firstJwk];
    const idp = provider(() => published);
    const verifier = new OidcTokenVerifier(settings({ jwksCacheSeconds: 0 }), idp.fetch);
    const old = await token();
    expect((await verifier.verify(old)).username).toMatch(/alice-id$/);
    published = [secondJwk];
    expect((await verifier.verify(await token({}, second, 'second'))).username).toMatch(/alice-id$/);
    expect(await refusal(verifier, old)).toMatch(/does not publish/);
  });

  it('refuses a groups claim that is not a string or list of strings, or lists more than MAX_GROUPS', async () => {
    const verifier = new OidcTokenVerifier(settings(), provider(() => [firstJwk]).fetch);
    for (const groups of [42, { admin: true }, ['ok', 7]])
      expect(await refusal(verifier, await token({ groups }))).toMatch(/not a string or a list of strings/);
    const huge = Array.from({ length: MAX_GROUPS + 1 }, (_, i) => `g${i}`);
    expect(await refusal(verifier, await token({ groups: huge }))).toMatch(/more than 500/);
    expect(await refusal(verifier, await token({ groups: ['x'.repeat(600)] }))).toMatch(/longer than/);
    expect(await refusal(verifier, await token({ sub: '' }))).toMatch(/sub claim/);
  });

  it('says the provider is unavailable while it is down or its discovery names another issuer, and recovers', async () => {
    const idp = provider(() => [firstJwk]);
    const verifier = new OidcTokenVerifier(settings(), idp.fetch);
    idp.state.down = true;
    await expect(verifier.verify(await token())).rejects.toBeInstanceOf(ProviderUnavailableError);
    idp.state.down = false;
    idp.state.issuer = 'https://other.example.test';
    await expect(verifier.verify(await token())).rejects.toThrow(/names the issuer https:\/\/other/);
    idp.state.issuer = ISSUER;
    expect((await verifier.verify(await token())).username).toMatch(/alice-id$/);
    // Keys already fetched keep verifying while the provider is down.
    idp.state.down = true;
    expect((await verifier.verify(await token())).username).toMatch(/alice-id$/);
  });
});
