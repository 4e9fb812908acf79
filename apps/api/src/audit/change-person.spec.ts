import { describe, expect, it } from 'vitest';
import type { Caller } from '../auth/roles.js';
import { changePerson } from './change-person.js';

describe('changePerson', () => {
  it('names a token-file token as a static token, with no address and no groups', () => {
    expect(changePerson({ name: 'ci', role: 'editor' })).toEqual({
      actorEmail: null,
      actorGroups: null,
      authenticatedBy: 'static-token',
    });
  });

  it('names a person signed in with OIDC by their address and groups', () => {
    const caller: Caller = {
      name: 'oidc:alice',
      role: 'viewer',
      identity: {
        username: 'oidc:alice',
        groups: ['oidc:platform'],
        email: 'alice@example.com',
        authenticatedBy: 'oidc',
      },
    };
    expect(changePerson(caller)).toEqual({
      actorEmail: 'alice@example.com',
      actorGroups: '["oidc:platform"]',
      authenticatedBy: 'oidc',
    });
  });

  it('names a ServiceAccount by the groups the cluster gave it, and keeps an empty list of groups', () => {
    const identity = {
      username: 'system:serviceaccount:ci:deployer',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
      authenticatedBy: 'serviceaccount' as const,
    };
    expect(changePerson({ name: identity.username, role: 'editor', identity })).toEqual({
      actorEmail: null,
      actorGroups: JSON.stringify(identity.groups),
      authenticatedBy: 'serviceaccount',
    });
    expect(
      changePerson({
        name: 'bob',
        role: 'editor',
        identity: { ...identity, groups: [], authenticatedBy: 'oidc' },
      }),
    ).toMatchObject({ actorGroups: '[]' });
  });
});
