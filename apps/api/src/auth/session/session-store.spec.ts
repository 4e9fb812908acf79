import { describe, expect, it } from 'vitest';
import type { Identity } from '../identity.js';
import { SessionRevokedError, SessionStore, type ConfirmedIdentity, type Renew } from './session-store.js';

const alice: Identity = { username: 'oidc:alice', groups: ['oidc:team-a'], authenticatedBy: 'oidc' };
const HOUR = 3_600_000;

function store(renew?: Renew, maxAgeMs = 8 * HOUR) {
  const clock = { now: 1_000_000 };
  const sessions = new SessionStore({ maxAgeMs, ...(renew ? { renew } : {}), now: () => clock.now });
  const confirmed = (identity = alice, refreshToken: string | null = 'r1'): ConfirmedIdentity => ({
    identity,
    tokens: { idToken: 'id1', ...(refreshToken ? { refreshToken } : {}) },
    recheckAt: clock.now + 60_000,
  });
  return { sessions, clock, confirmed };
}

describe('SessionStore', () => {
  it('finds a session by its id until it expires, whatever happens', async () => {
    const { sessions, clock, confirmed } = store();
    const { id, expiresAt } = sessions.create(confirmed());
    expect(id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await sessions.identify(id)).toEqual({ identity: alice });
    expect(sessions.peek(id)).toEqual(alice);
    expect(await sessions.identify(`${id}x`)).toHaveProperty('refused');
    clock.now = expiresAt;
    expect(await sessions.identify(id)).toEqual({ refused: 'the session has expired or was signed out' });
    expect(sessions.size).toBe(0);
  });

  it('renews the identity with the refresh token once the ID token has expired; concurrent requests share one renewal', async () => {
    let calls = 0;
    const renamed = { ...alice, groups: ['oidc:team-b'] };
    const { sessions, clock, confirmed } = store(async (refreshToken) => {
      calls++;
      expect(refreshToken).toBe('r1');
      return {
        identity: renamed,
        tokens: { idToken: 'id2', refreshToken: 'r2' },
        recheckAt: clock.now + 60_000,
      };
    });
    const { id } = sessions.create(confirmed());
    clock.now += 61_000;
    expect(sessions.peek(id)).toBeUndefined(); // the paths that cannot wait leave it to identify
    const answers = await Promise.all([sessions.identify(id), sessions.identify(id)]);
    expect(answers).toEqual([{ identity: renamed }, { identity: renamed }]);
    expect(calls).toBe(1);
    expect(sessions.end(id)).toEqual({ idToken: 'id2', refreshToken: 'r2' });
  });

  it('ends the session when the provider refuses the refresh token (revoked)', async () => {
    const { sessions, clock, confirmed } = store(async () => {
      throw new SessionRevokedError('invalid_grant');
    });
    const { id } = sessions.create(confirmed());
    clock.now += 61_000;
    expect(await sessions.identify(id)).toEqual({ refused: 'the identity provider ended the sign-in' });
    expect(sessions.size).toBe(0);
  });

  it('goes on while the provider cannot be reached, asking again every 30 s, until the session expires', async () => {
    let calls = 0;
    const { sessions, clock, confirmed } = store(async () => {
      calls++;
      throw new TypeError('fetch failed');
    }, 2 * 60_000);
    const { id } = sessions.create(confirmed());
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
    const { sessions, clock, confirmed } = store(async () => {
      throw new Error('not called');
    });
    const { id } = sessions.create(confirmed(alice, null));
    clock.now += 61_000;
    expect(await sessions.identify(id)).toEqual({ refused: 'the sign-in has expired' });
  });

  it('matches the CSRF token of that session only', () => {
    const { sessions, confirmed } = store();
    const a = sessions.create(confirmed());
    const b = sessions.create(confirmed());
    expect(sessions.csrfMatches(a.id, a.csrfToken)).toBe(true);
    expect(sessions.csrfMatches(a.id, b.csrfToken)).toBe(false);
    expect(sessions.csrfMatches(a.id, undefined)).toBe(false);
    expect(sessions.csrfMatches(a.id, `${a.csrfToken}x`)).toBe(false);
    sessions.end(a.id);
    expect(sessions.csrfMatches(a.id, a.csrfToken)).toBe(false);
    expect(sessions.describe(b.id)).toMatchObject({ identity: alice, csrfToken: b.csrfToken });
  });
});
