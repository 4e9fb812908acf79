import type { Request, Response } from 'express';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../../config/app-config.js';
import { StatusException } from '../../http/kube-status.js';
import type { Authenticator } from '../authenticator.js';
import { ProviderUnavailableError } from '../oidc/oidc-token-verifier.js';
import type { Refusal } from '../refusal-recorder.js';
import { SignInRefusedError, type OidcSignIn } from './oidc-sign-in.js';
import { PendingSignIns } from './pending-sign-ins.js';
import { PendingSignInRecords, type PendingSignInRow } from './session-records.js';
import { SessionController } from './session.controller.js';
import type { SessionStore } from './session-store.js';

const config = { auth: { oidc: { issuerUrl: 'https://idp.example' } } } as unknown as AppConfig;
const pendingSignIn = { codeVerifier: 'v', nonce: 'n', next: '/', redirectUri: 'http://cp/callback' };

/** The sign-ins under way of one test, in a map (the SQL tables are tested in audit/session-tables.spec.ts). */
class PendingInMemory extends PendingSignInRecords {
  private readonly rows = new Map<string, PendingSignInRow>();
  async insert(state: string, row: PendingSignInRow) {
    this.rows.set(state, row);
  }
  async take(state: string, browser: string | undefined) {
    const row = this.rows.get(state);
    if (!row) return 'unknown' as const;
    if (row.browserDigest !== browser) return 'other-browser' as const;
    this.rows.delete(state);
    return row;
  }
  async sweep() {
    return 0;
  }
}

function controller(
  oidc: Partial<OidcSignIn>,
  authorize: Authenticator['authorize'] = () => ({ caller: { name: 'x', role: 'viewer' } }),
) {
  const recorded: Refusal[] = [];
  const pending = new PendingSignIns(new PendingInMemory());
  const session = new SessionController(
    { create: async () => ({ id: 'id', expiresAt: Date.now() + 1000 }) } as unknown as SessionStore,
    pending,
    { authorize } as unknown as Authenticator,
    config,
    { record: (refusal) => recorded.push(refusal) },
    oidc as OidcSignIn,
  );
  return { session, recorded, pending };
}

const request = (url: string, headers: Record<string, string> = {}) => {
  const parsed = new URL(url, 'http://cp');
  return {
    originalUrl: url,
    path: parsed.pathname,
    query: Object.fromEntries(parsed.searchParams),
    headers: { host: 'cp', ...headers },
    ip: '10.0.0.7',
    secure: false,
    accepts: () => 'json', // not a browser: refusals are thrown as a Status
  } as unknown as Request;
};
const response = { setHeader: () => {}, redirect: () => {} } as unknown as Response;

async function refusalOf(run: () => Promise<unknown>): Promise<StatusException> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(StatusException);
    return error as StatusException;
  }
  throw new Error('expected a refusal');
}

describe('SessionController records each refused sign-in', () => {
  it('the provider down: 503 provider-unavailable', async () => {
    const { session, recorded } = controller({
      start: async () => {
        throw new ProviderUnavailableError('connect ECONNREFUSED');
      },
    });
    expect((await refusalOf(() => session.signIn(request('/auth/sign-in'), response))).code).toBe(503);
    expect(recorded).toMatchObject([
      { door: 'sign-in', code: 503, reason: 'provider-unavailable', address: '10.0.0.7' },
    ]);
  });

  it('a `next` off this site: 400 bad-request', async () => {
    const { session, recorded } = controller({});
    const next = encodeURIComponent('https://evil.example/');
    expect(
      (await refusalOf(() => session.signIn(request(`/auth/sign-in?next=${next}`), response))).code,
    ).toBe(400);
    expect(recorded).toMatchObject([{ code: 400, reason: 'bad-request' }]);
  });

  it('an unknown or replayed state: 401 bad-state, the state not stored', async () => {
    const { session, recorded } = controller({});
    const answer = await refusalOf(() =>
      session.callback(request('/auth/callback?state=replayed-state-123&code=the-code-456'), response),
    );
    expect(answer.code).toBe(401);
    expect(recorded).toMatchObject([{ code: 401, reason: 'bad-state' }]);
    expect(JSON.stringify(recorded)).not.toContain('the-code-456');
  });

  it('a callback in another browser: 401 other-browser', async () => {
    const { session, recorded, pending } = controller({});
    await pending.add('state-1', pendingSignIn);
    await refusalOf(() => session.callback(request('/auth/callback?state=state-1&code=c'), response));
    expect(recorded).toMatchObject([{ code: 401, reason: 'other-browser' }]);
  });

  it('an answer of the provider that does not hold (nonce, ID token): 401 provider-refused', async () => {
    const { session, recorded, pending } = controller({
      finish: async () => {
        throw new SignInRefusedError('the nonce does not match');
      },
    });
    const browser = await pending.add('state-2', pendingSignIn);
    await refusalOf(() =>
      session.callback(
        request('/auth/callback?state=state-2&code=c', { cookie: `ngx-sign-in=${browser}` }),
        response,
      ),
    );
    expect(recorded).toMatchObject([{ code: 401, reason: 'provider-refused' }]);
  });

  it('the provider answering an error (the person said no): 401 naming it, nothing exchanged', async () => {
    let exchanged = false;
    const { session, recorded, pending } = controller({
      finish: async () => {
        exchanged = true;
        throw new Error('not reached');
      },
    });
    const browser = await pending.add('state-3', pendingSignIn);
    const answer = await refusalOf(() =>
      session.callback(
        request('/auth/callback?state=state-3&error=access_denied&error_description=denied', {
          cookie: `ngx-sign-in=${browser}`,
        }),
        response,
      ),
    );
    expect(answer.code).toBe(401);
    expect(answer.message).toMatch(/access_denied/);
    expect(exchanged).toBe(false);
    expect(recorded).toMatchObject([{ code: 401 }]);
  });

  it('an identity the policy grants nothing: 403 no-grant naming it', async () => {
    const identity = { username: 'mallory', groups: [], authenticatedBy: 'oidc' };
    const { session, recorded, pending } = controller(
      { finish: async () => ({ identity }) as unknown as Awaited<ReturnType<OidcSignIn['finish']>> },
      () =>
        ({
          forbidden: 'mallory is authenticated but the access policy grants it nothing',
          identity,
        }) as never,
    );
    const browser = await pending.add('state-3', pendingSignIn);
    await refusalOf(() =>
      session.callback(
        request('/auth/callback?state=state-3&code=c', { cookie: `ngx-sign-in=${browser}` }),
        response,
      ),
    );
    expect(recorded).toMatchObject([{ code: 403, reason: 'no-grant', subject: 'mallory' }]);
  });

  it('a failure of our own (500) is logged, not counted as a refusal', async () => {
    const { session, recorded } = controller({
      start: async () => {
        throw new Error('bug');
      },
    });
    expect((await refusalOf(() => session.signIn(request('/auth/sign-in'), response))).code).toBe(500);
    expect(recorded).toEqual([]);
  });
});
