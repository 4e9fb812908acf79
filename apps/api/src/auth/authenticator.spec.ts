import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { Authenticator } from './authenticator.js';
import type { Identity } from './identity.js';
import { TokenRefusedError, type OidcTokenVerifier } from './oidc/oidc-token-verifier.js';
import { PolicySource } from './policy-source.js';
import type { ServiceAccountTokens } from './service-account-tokens.js';
import { TokenStore } from './token-store.js';

const ISSUER = 'https://dex.example.test';
const STATIC = 'a-static-token-of-the-file-0001';

/**
 * An unsigned JWT with these claims (valid until 1,300 s on the test's clock): the Authenticator only reads `iss`
 * and `exp` itself; verifying is faked here.
 */
const jwt = (claims: object) =>
  [{ alg: 'RS256' }, { exp: 1_300, ...claims }]
    .map((part) => Buffer.from(JSON.stringify(part)).toString('base64url'))
    .join('.') + '.c2ln';

function setup(policy: string, rbac = false) {
  const dir = mkdtempSync(join(tmpdir(), 'ngx-authn-'));
  const file = join(dir, 'policy.yaml');
  writeFileSync(file, policy);
  let now = 1_000_000;
  const alice: Identity = { username: `${ISSUER}#alice`, groups: ['team-a'], authenticatedBy: 'oidc' };
  const verify = vi.fn(async (token: string): Promise<Identity> => {
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { bad?: boolean };
    if (claims.bad) throw new TokenRefusedError('the token has expired');
    return alice;
  });
  const review = vi.fn(async (token: string) =>
    token === jwt({ iss: 'https://kubernetes.default.svc', aud: 'nginx-control-plane' })
      ? {
          identity: {
            username: 'system:serviceaccount:ci:deployer',
            groups: ['system:serviceaccounts', 'system:serviceaccounts:ci'],
            authenticatedBy: 'serviceaccount' as const,
          },
        }
      : { refused: 'the cluster does not authenticate the token for the audience nginx-control-plane' },
  );
  const authenticator = new Authenticator(
    new TokenStore([{ name: 'ops', role: 'admin', token: STATIC }]),
    new PolicySource(file, undefined, () => now),
    {
      oidc: { verifier: { verify } as unknown as OidcTokenVerifier, issuer: ISSUER },
      serviceAccounts: { review, audience: 'nginx-control-plane' } as unknown as ServiceAccountTokens,
      rbac,
      now: () => now,
    },
  );
  return { authenticator, verify, review, file, advance: (ms: number) => (now += ms) };
}

describe('Authenticator', () => {
  it('takes static tokens, ID tokens of the provider and ServiceAccount tokens, with the policy’s grants', async () => {
    const { authenticator, verify, review } = setup(
      '- {group: team-a, role: editor, namespaces: [team-a]}\n- {group: "system:serviceaccounts:ci", role: viewer}',
    );
    expect(await authenticator.authenticate(`Bearer ${STATIC}`)).toEqual({
      caller: { name: 'ops', role: 'admin' },
    });
    const idToken = jwt({ iss: ISSUER, sub: 'alice' });
    expect(await authenticator.authenticate(`Bearer ${idToken}`)).toMatchObject({
      caller: {
        name: `${ISSUER}#alice`,
        role: 'editor',
        namespaces: ['team-a'],
        identity: { authenticatedBy: 'oidc' },
      },
    });
    const saToken = jwt({ iss: 'https://kubernetes.default.svc', aud: 'nginx-control-plane' });
    expect(await authenticator.authenticate(`Bearer ${saToken}`)).toMatchObject({
      caller: { name: 'system:serviceaccount:ci:deployer', role: 'viewer' },
    });
    expect(verify).toHaveBeenCalledTimes(1);
    expect(review).toHaveBeenCalledTimes(1);
    // Seen moments ago: known without asking again (the request budget and the relayed reads need this).
    expect(authenticator.known(`Bearer ${idToken}`)?.name).toBe(`${ISSUER}#alice`);
    await authenticator.authenticate(`Bearer ${idToken}`);
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('refuses what is no token of ours (401), and forbids an identity the policy does not name (403)', async () => {
    const { authenticator } = setup('- {user: somebody-else, role: admin}');
    expect(await authenticator.authenticate(undefined)).toEqual({
      refused: 'a valid bearer token is required',
    });
    expect(await authenticator.authenticate('Basic YWxpY2U6cHc=')).toEqual({
      refused: 'a valid bearer token is required',
    });
    expect(await authenticator.authenticate('Bearer not-a-known-token')).toEqual({
      refused: 'the token is not known',
    });
    expect(await authenticator.authenticate(`Bearer ${jwt({ iss: ISSUER, bad: true })}`)).toEqual({
      refused: 'the token has expired',
    });
    expect(await authenticator.authenticate(`Bearer ${jwt({ iss: 'https://elsewhere', aud: 'x' })}`)).toEqual(
      {
        refused: 'the cluster does not authenticate the token for the audience nginx-control-plane',
      },
    );
    expect(await authenticator.authenticate(`Bearer ${jwt({ iss: ISSUER })}`)).toMatchObject({
      forbidden: `${ISSUER}#alice is authenticated but the access policy grants it nothing`,
    });
    expect(authenticator.known(`Bearer ${jwt({ iss: ISSUER })}`)).toBeUndefined();
  });

  it('applies an edited policy file within a second, and keeps the old one when the edit is bad', async () => {
    const { authenticator, file, advance } = setup('- {group: team-a, role: viewer}');
    const bearer = `Bearer ${jwt({ iss: ISSUER })}`;
    expect(await authenticator.authenticate(bearer)).toMatchObject({ caller: { role: 'viewer' } });
    writeFileSync(file, '- {group: team-a, role: admin}\n# longer, so the size differs too');
    advance(1_000);
    expect(authenticator.known(bearer)).toMatchObject({ role: 'admin' });
    writeFileSync(file, '- {group: team-a, role: owner}\n# a bad edit, of yet another size');
    advance(1_000);
    expect(authenticator.known(bearer)).toMatchObject({ role: 'admin' });
    writeFileSync(file, '');
    advance(1_000);
    expect(await authenticator.authenticate(bearer)).toHaveProperty('forbidden');
  });

  it('asks again once an answer is older than it may be kept', async () => {
    const { authenticator, review, advance } = setup('- {group: "system:serviceaccounts:ci", role: viewer}');
    const bearer = `Bearer ${jwt({ iss: 'https://kubernetes.default.svc', aud: 'nginx-control-plane' })}`;
    await authenticator.authenticate(bearer);
    advance(9_000);
    await authenticator.authenticate(bearer);
    expect(review).toHaveBeenCalledTimes(1);
    advance(2_000);
    expect(authenticator.known(bearer)).toBeUndefined();
    await authenticator.authenticate(bearer);
    expect(review).toHaveBeenCalledTimes(2);
  });

  it('refuses (401) while kube-apiserver cannot be asked, and asks again on the next request', async () => {
    const { authenticator, review } = setup('- {group: "system:serviceaccounts:ci", role: viewer}');
    const bearer = `Bearer ${jwt({ iss: 'https://kubernetes.default.svc', aud: 'nginx-control-plane' })}`;
    review.mockRejectedValueOnce(new Error('connect ECONNREFUSED 127.0.0.1:6443'));
    expect(await authenticator.authenticate(bearer)).toEqual({
      refused: 'the cluster cannot be asked about the token now: connect ECONNREFUSED 127.0.0.1:6443',
    });
    expect(authenticator.known(bearer)).toBeUndefined();
    expect(await authenticator.authenticate(bearer)).toMatchObject({ caller: { role: 'viewer' } });
    expect(review).toHaveBeenCalledTimes(2);
  });
});

describe('Authenticator with the cluster’s RBAC deciding (AUTHORIZATION=kubernetes)', () => {
  it('makes every token it takes a caller holding none of our roles: no policy, no static role', async () => {
    const { authenticator } = setup('[]', true);
    expect(await authenticator.authenticate(`Bearer ${STATIC}`)).toEqual({
      caller: { name: 'ops', role: 'viewer', grants: [], rbac: true },
    });
    const saToken = jwt({ iss: 'https://kubernetes.default.svc', aud: 'nginx-control-plane' });
    expect(await authenticator.authenticate(`Bearer ${saToken}`)).toMatchObject({
      caller: {
        name: 'system:serviceaccount:ci:deployer',
        rbac: true,
        grants: [],
        identity: { authenticatedBy: 'serviceaccount' },
      },
    });
    expect(authenticator.known(`Bearer ${saToken}`)).toMatchObject({ rbac: true });
    expect(await authenticator.authenticate('Bearer nope')).toEqual({ refused: 'the token is not known' });
  });
});
