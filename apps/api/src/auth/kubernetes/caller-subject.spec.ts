import { describe, expect, it } from 'vitest';
import { rbacCaller } from '../roles.js';
import { impersonationOf, subjectOf } from './caller-subject.js';

describe('subjectOf', () => {
  it('is the identity’s user and groups, with system:authenticated as kube-apiserver adds it, and system: groups only from the cluster', () => {
    const caller = rbacCaller('alice', {
      username: 'oidc:alice',
      groups: ['oidc:team-a', 'system:masters'],
      authenticatedBy: 'oidc',
    });
    expect(subjectOf(caller)).toEqual({
      user: 'oidc:alice',
      groups: ['oidc:team-a', 'system:authenticated'],
    });
    expect(impersonationOf(caller)).toEqual(subjectOf(caller));
    const sa = rbacCaller('system:serviceaccount:ci:deployer', {
      username: 'system:serviceaccount:ci:deployer',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:ci', 'system:authenticated'],
      authenticatedBy: 'serviceaccount',
    });
    expect(subjectOf(sa).groups).toEqual([
      'system:serviceaccounts',
      'system:serviceaccounts:ci',
      'system:authenticated',
    ]);
  });

  it('is a static token’s name under our prefix, so it cannot pass for a person of that name', () => {
    expect(subjectOf(rbacCaller('ci-bot'))).toEqual({
      user: 'nginx-control-plane:token:ci-bot',
      groups: ['system:authenticated'],
    });
  });
});
