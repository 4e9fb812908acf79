import { describe, expect, it } from 'vitest';
import { authorizationSettings } from './authorization-settings.js';

describe('authorizationSettings', () => {
  it('keeps the cache time for kubernetes only, in ms', () => {
    const env = { AUTHORIZATION_CACHE_SECONDS: 1.5, AUTH_POLICY_FILE: undefined };
    expect(authorizationSettings({ ...env, AUTHORIZATION: 'roles' })).toEqual({ mode: 'roles' });
    expect(authorizationSettings({ ...env, AUTHORIZATION: 'kubernetes' })).toEqual({
      mode: 'kubernetes',
      cacheMs: 1500,
    });
  });

  it('refuses a policy file the cluster’s RBAC would ignore', () => {
    expect(() =>
      authorizationSettings({
        AUTHORIZATION: 'kubernetes',
        AUTHORIZATION_CACHE_SECONDS: 10,
        AUTH_POLICY_FILE: '/p.yaml',
      }),
    ).toThrow(/AUTH_POLICY_FILE grants our roles/);
  });
});
