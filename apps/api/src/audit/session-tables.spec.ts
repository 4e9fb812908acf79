import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Identity } from '../auth/identity.js';
import { PendingSignIns, type PendingSignIn } from '../auth/session/pending-sign-ins.js';
import { SessionStorageUnavailableError } from '../auth/session/session-records.js';
import {
  SessionRevokedError,
  SessionStore,
  type ConfirmedIdentity,
  type Renew,
} from '../auth/session/session-store.js';
import { AuditDatabase } from './audit-database.js';
import { SqlPendingSignInRecords, SqlSessionRecords } from './session-tables.js';

// Browser sessions and sign-ins under way over the real tables (SQLite in memory, the migrations applied), as
// every API replica shares them: two SessionStores over one database stand for two replicas.

const alice: Identity = { username: 'oidc:alice', groups: ['oidc:team-a'], authenticatedBy: 'oidc' };
const HOUR = 3_600_000;
const migrations = fileURLToPath(new URL('../../../../prisma/migrations', import.meta.url));

const opened: AuditDatabase[] = [];
afterEach(async () => {
  for (const database of opened.splice(0)) await database.close().catch(() => undefined);
});

async function database(): Promise<AuditDatabase> {
  const db = await AuditDatabase.connect({
    provider: 'sqlite',
    url: 'file::memory:',
    schema: 'prisma/schema.prisma',
    migrations,
  });
  opened.push(db);
  return db;
}

async function stores(renew?: Renew, maxAgeMs = 8 * HOUR, replicas = 1) {
  const db = await database();
  const clock = { now: Date.now() };
  const make = () =>
    new SessionStore(new SqlSessionRecords(db), {
      maxAgeMs,
      ...(renew ? { renew } : {}),
      now: () => clock.now,
    });
  const all = Array.from({ length: replicas }, make);
  const confirmed = (identity = alice, refreshToken: string | null = 'r1'): ConfirmedIdentity => ({
    identity,
    tokens: { idToken: 'id1', ...(refreshToken ? { refreshToken } : {}) },
    recheckAt: clock.now + 60_000,
  });
  const count = async () =>
    Number(
      (await db.read({ strings: ['SELECT COUNT(*) FROM "BrowserSession"'], values: [], types: [] }))[0]![0],
    );
  return { sessions: all[0]!, replicas: all, clock, confirmed, db, count };
}

describe('SessionStore over the BrowserSession table', () => {
  it('finds a session by its id until it expires, whatever happens', async () => {
    const { sessions, clock, confirmed, count } = await stores();
    const { id, expiresAt } = await sessions.create(confirmed());
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await sessions.identify(id)).toEqual({ identity: alice });
    expect(await sessions.identify(`${id}x`)).toHaveProperty('refused');
    clock.now = expiresAt;
    expect(await sessions.identify(id)).toEqual({ refused: 'the session has expired or was signed out' });
    clock.now += 61_000; // a sign-in sweeps what expired
    await sessions.create(confirmed());
    expect(await count()).toBe(1);
  });

  it('keeps digests and sealed tokens only: no session id, CSRF token, ID token or refresh token in the table', async () => {
    const { sessions, confirmed, db } = await stores();
    const { id, csrfToken } = await sessions.create(confirmed(alice, 'refresh-secret'));
    const rows = await db.read({ strings: ['SELECT * FROM "BrowserSession"'], values: [], types: [] });
    const stored = JSON.stringify(rows);
    for (const secret of [id, csrfToken, 'refresh-secret', 'id1']) expect(stored).not.toContain(secret);
    expect(stored).toContain('oidc:alice');
  });

  it('renews the identity with the refresh token once the ID token has expired; concurrent requests share one renewal', async () => {
    let calls = 0;
    const renamed = { ...alice, groups: ['oidc:team-b'] };
    const { sessions, clock, confirmed } = await stores(async (refreshToken) => {
      calls++;
      expect(refreshToken).toBe('r1');
      return {
        identity: renamed,
        tokens: { idToken: 'id2', refreshToken: 'r2' },
        recheckAt: clock.now + 60_000,
      };
    });
    const { id } = await sessions.create(confirmed());
    clock.now += 61_000;
    const answers = await Promise.all([sessions.identify(id), sessions.identify(id)]);
    expect(answers).toEqual([{ identity: renamed }, { identity: renamed }]);
    expect(calls).toBe(1);
    expect(await sessions.end(id)).toEqual({ idToken: 'id2', refreshToken: 'r2' });
  });

  it('two replicas seeing the expired ID token at once renew it once: the other waits for the outcome', async () => {
    let calls = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const renamed = { ...alice, groups: ['oidc:team-c'] };
    const { replicas, clock, confirmed } = await stores(
      async () => {
        calls++;
        await held;
        return {
          identity: renamed,
          tokens: { idToken: 'id2', refreshToken: 'r2' },
          recheckAt: clock.now + 60_000,
        };
      },
      8 * HOUR,
      2,
    );
    const [a, b] = replicas as [SessionStore, SessionStore];
    const { id } = await a.create(confirmed());
    clock.now += 61_000;
    const answers = Promise.all([a.identify(id), b.identify(id)]);
    while (calls === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    expect(await answers).toEqual([{ identity: renamed }, { identity: renamed }]);
    expect(calls).toBe(1);
  });

  it('a sign-out on one replica ends the session on the others at once', async () => {
    const { replicas, confirmed } = await stores(undefined, 8 * HOUR, 2);
    const [a, b] = replicas as [SessionStore, SessionStore];
    const { id } = await a.create(confirmed());
    expect(await b.identify(id)).toEqual({ identity: alice });
    expect(await b.stillLive([id])).toEqual(new Set([id]));
    expect(await a.end(id)).toEqual({ idToken: 'id1', refreshToken: 'r1' });
    expect(await b.identify(id)).toEqual({ refused: 'the session has expired or was signed out' });
    expect(await b.stillLive([id])).toEqual(new Set());
    expect(await b.end(id)).toBeUndefined();
  });

  it('ends the session when the provider refuses the refresh token (revoked)', async () => {
    const { sessions, clock, confirmed, count } = await stores(async () => {
      throw new SessionRevokedError('invalid_grant');
    });
    const { id } = await sessions.create(confirmed());
    clock.now += 61_000;
    expect(await sessions.identify(id)).toEqual({ refused: 'the identity provider ended the sign-in' });
    expect(await count()).toBe(0);
  });

  it('goes on while the provider cannot be reached, asking again every 30 s, until the session expires', async () => {
    let calls = 0;
    const { sessions, clock, confirmed } = await stores(async () => {
      calls++;
      throw new TypeError('fetch failed');
    }, 2 * 60_000);
    const { id } = await sessions.create(confirmed());
    clock.now += 61_000;
    expect(await sessions.identify(id)).toEqual({ identity: alice });
    clock.now += 10_000;
    expect(await sessions.identify(id)).toEqual({ identity: alice });
    expect(calls).toBe(1);
    clock.now += 25_000;
    expect(await sessions.identify(id)).toEqual({ identity: alice });
    expect(calls).toBe(2);
    clock.now += 30_000;
    expect(await sessions.identify(id)).toHaveProperty('refused');
  });

  it('ends a session without a refresh token with its ID token', async () => {
    const { sessions, clock, confirmed } = await stores(async () => {
      throw new Error('not called');
    });
    const { id } = await sessions.create(confirmed(alice, null));
    clock.now += 61_000;
    expect(await sessions.identify(id)).toEqual({ refused: 'the sign-in has expired' });
  });

  it('matches the CSRF token of that session only, on any replica', async () => {
    const { replicas, confirmed } = await stores(undefined, 8 * HOUR, 2);
    const [sessions, other] = replicas as [SessionStore, SessionStore];
    const a = await sessions.create(confirmed());
    const b = await sessions.create(confirmed());
    expect(sessions.csrfMatches(a.id, a.csrfToken)).toBe(true);
    expect(other.csrfMatches(a.id, a.csrfToken)).toBe(true);
    expect(sessions.csrfMatches(a.id, b.csrfToken)).toBe(false);
    expect(sessions.csrfMatches(a.id, undefined)).toBe(false);
    expect(sessions.csrfMatches(a.id, `${a.csrfToken}x`)).toBe(false);
    expect(await other.describe(b.id)).toMatchObject({ identity: alice, csrfToken: b.csrfToken });
  });

  it('says unavailable, and signs nobody out, when the database cannot be reached', async () => {
    const { sessions, confirmed, db } = await stores();
    const { id } = await sessions.create(confirmed());
    await db.close();
    expect(await sessions.identify(id)).toEqual({
      unavailable: expect.stringMatching(/^the session storage cannot be reached/) as string,
    });
    await expect(sessions.describe(id)).rejects.toBeInstanceOf(SessionStorageUnavailableError);
    await expect(sessions.end(id)).rejects.toBeInstanceOf(SessionStorageUnavailableError);
  });

  it('names a recently confirmed session’s user for request budgets only', async () => {
    const { replicas, confirmed } = await stores(undefined, 8 * HOUR, 2);
    const [a, b] = replicas as [SessionStore, SessionStore];
    const { id } = await a.create(confirmed());
    expect(a.recentUser(id)).toBe('oidc:alice');
    expect(b.recentUser(id)).toBeUndefined();
    await b.identify(id);
    expect(b.recentUser(id)).toBe('oidc:alice');
  });
});

const signIn: PendingSignIn = {
  codeVerifier: 'verifier-secret',
  nonce: 'nonce-secret',
  next: '/',
  redirectUri: 'https://cp/callback',
};

describe('PendingSignIns over the PendingSignIn table', () => {
  it('gives a sign-in back once, to the browser that started it, on any replica', async () => {
    const db = await database();
    const started = new PendingSignIns(new SqlPendingSignInRecords(db));
    const other = new PendingSignIns(new SqlPendingSignInRecords(db));
    const browser = await started.add('s1', signIn);
    expect(await other.take('s1', undefined)).toBe('other-browser');
    expect(await other.take('s1', 'someone-else')).toBe('other-browser');
    expect(await other.take('s1', browser)).toEqual(signIn);
    expect(await started.take('s1', browser)).toBe('unknown');
    expect(await other.take('never', browser)).toBe('unknown');
  });

  it('keeps the state’s digest and the verifier and nonce sealed under the browser’s cookie', async () => {
    const db = await database();
    const browser = await new PendingSignIns(new SqlPendingSignInRecords(db)).add('state-secret', signIn);
    const stored = JSON.stringify(
      await db.read({ strings: ['SELECT * FROM "PendingSignIn"'], values: [], types: [] }),
    );
    for (const secret of ['state-secret', 'verifier-secret', 'nonce-secret', browser])
      expect(stored).not.toContain(secret);
  });

  it('forgets a sign-in after ten minutes', async () => {
    let now = Date.now();
    const pending = new PendingSignIns(new SqlPendingSignInRecords(await database()), () => now);
    const browser = await pending.add('s1', signIn);
    now += 10 * 60_000;
    expect(await pending.take('s1', browser)).toBe('unknown');
  });
});
