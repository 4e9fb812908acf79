// A real OpenID provider for the tests: node-oidc-provider (OpenID Certified), over TLS with the app's serving
// certificate (signed by the local cluster's CA, for 127.0.0.1) at the issuer kube-apiserver is started with
// (tools/cluster/lib.sh: CLUSTER_OIDC_ISSUER), so one ID token works against both APIs. People sign in through
// its own login and consent forms (its development interactions: any password), and get the groups the test
// gives them.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { join } from 'node:path';
import Provider, { type Adapter, type AdapterPayload } from 'oidc-provider';
import { CLUSTER_DIR } from './paths.js';

export const ISSUER = 'https://127.0.0.1:5556';
export const CLIENT_ID = 'nginx-control-plane';
export const CLIENT_SECRET = 'test-client-secret-that-is-long-enough';
/** The redirect a scripted client (standing in for kubectl's oidc-login) uses; nothing listens there. */
export const SCRIPTED_REDIRECT = 'https://127.0.0.1/oidc-login/callback';
const PKI = join(CLUSTER_DIR, 'pki');

/** Everything the provider keeps (grants, codes, sessions, tokens), so a test can revoke what it issued. */
class MemoryStore {
  readonly entries = new Map<string, { model: string; payload: AdapterPayload; until: number }>();

  adapter = (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    const live = (id: string) => {
      const entry = this.entries.get(key(id));
      return entry && entry.until > Date.now() ? entry.payload : undefined;
    };
    return {
      upsert: async (id, payload, expiresIn) => {
        this.entries.set(key(id), { model, payload, until: Date.now() + (expiresIn ?? 3600) * 1000 });
      },
      find: async (id) => live(id),
      findByUid: async (uid) =>
        [...this.entries.values()].find((e) => e.model === model && e.payload.uid === uid)?.payload,
      findByUserCode: async (userCode) =>
        [...this.entries.values()].find((e) => e.model === model && e.payload.userCode === userCode)?.payload,
      consume: async (id) => {
        const payload = live(id);
        if (payload) payload.consumed = Math.floor(Date.now() / 1000);
      },
      destroy: async (id) => {
        this.entries.delete(key(id));
      },
      revokeByGrantId: async (grantId) => {
        for (const [k, e] of this.entries) if (e.payload.grantId === grantId) this.entries.delete(k);
      },
    };
  };

  /** Forgets every refresh token issued to `accountId` (as an administrator revoking a sign-in would). */
  revokeRefreshTokens(accountId: string): number {
    let revoked = 0;
    for (const [k, e] of this.entries)
      if (e.model === 'RefreshToken' && e.payload.accountId === accountId) {
        this.entries.delete(k);
        revoked++;
      }
    return revoked;
  }
}

export interface TestProvider {
  issuer: string;
  /** How many grants of `type` (`authorization_code`, `refresh_token`) the token endpoint has made so far. */
  grants: (type: string) => number;
  /** Ends every refresh token of the user: their sessions cannot be renewed. */
  revokeRefreshTokens: (login: string) => number;
  stop: () => Promise<void>;
}

export interface ProviderOptions {
  /** The app's callback URLs (and post-logout pages) the client may be sent back to. */
  redirectUris: string[];
  postLogoutRedirectUris?: string[];
  /** Groups of each login (others get none). */
  groups?: Record<string, string[]>;
  /** ID token lifetime in seconds (a session is renewed when it ends). */
  idTokenSeconds?: number;
}

export async function startProvider(options: ProviderOptions): Promise<TestProvider> {
  const store = new MemoryStore();
  const groups = options.groups ?? {};
  const Store = function (this: Adapter, model: string) {
    return store.adapter(model);
  } as unknown as new (model: string) => Adapter;
  const provider = new Provider(ISSUER, {
    adapter: Store,
    clients: [
      {
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        redirect_uris: [...options.redirectUris, SCRIPTED_REDIRECT],
        post_logout_redirect_uris: options.postLogoutRedirectUris ?? [],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [await signingKey()] },
    cookies: { keys: ['oidc-provider-test-cookie-key'] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name'],
      groups: ['groups'],
    },
    // The groups and email go in the ID token itself, as kube-apiserver reads them there.
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: true },
      rpInitiatedLogout: { enabled: true },
      revocation: { enabled: true },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: {
      IdToken: options.idTokenSeconds ?? 600,
      AccessToken: options.idTokenSeconds ?? 600,
      RefreshToken: 3600,
      Grant: 3600,
      Session: 3600,
      Interaction: 600,
      AuthorizationCode: 60,
    },
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({
        sub,
        name: sub,
        email: `${sub}@example.test`,
        email_verified: true,
        groups: groups[sub] ?? [],
      }),
    }),
  });
  const granted = new Map<string, number>();
  provider.on('grant.success', (ctx: { oidc: { params?: { grant_type?: unknown } } }) => {
    const type = String(ctx.oidc.params?.grant_type);
    granted.set(type, (granted.get(type) ?? 0) + 1);
  });
  const server: Server = createServer(
    { cert: readFileSync(join(PKI, 'control-plane.crt')), key: readFileSync(join(PKI, 'control-plane.key')) },
    provider.callback(),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(5556, '127.0.0.1', () => resolve());
  });
  return {
    issuer: ISSUER,
    grants: (type) => granted.get(type) ?? 0,
    revokeRefreshTokens: (login) => store.revokeRefreshTokens(login),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** One RSA signing key per test run (so kube-apiserver, which caches the JWKS, sees the same key throughout). */
let key: Promise<Record<string, unknown>> | undefined;
function signingKey() {
  key ??= (async () => {
    const { generateKeyPair, exportJWK } = await import('jose');
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    return { ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: `test-${Date.now()}` };
  })();
  return key;
}
