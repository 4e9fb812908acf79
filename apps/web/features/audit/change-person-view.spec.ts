import type { ChangeItem } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { changePerson, changePersonTitle, kubeSaw } from './change-person-view';

const item = (overrides: Partial<ChangeItem>): ChangeItem => ({
  id: 1,
  at: '2026-11-28T10:00:00.000Z',
  actor: 'oidc:alice',
  role: 'editor',
  actorEmail: null,
  actorGroups: null,
  authenticatedBy: null,
  verb: 'patch',
  namespace: 'shop',
  name: 'web',
  subresource: 'scale',
  patchType: 'application/merge-patch+json',
  specBefore: null,
  specAfter: null,
  code: 200,
  reason: null,
  message: null,
  uid: null,
  resourceVersion: null,
  userAgent: null,
  door: 'controlplane',
  sources: ['controlplane'],
  auditId: null,
  kubeUser: null,
  kubeGroups: null,
  impersonator: null,
  kubeActor: null,
  fieldManager: null,
  generation: null,
  ...overrides,
});

describe('the person behind a change', () => {
  it('names a person signed in with OIDC: name, address, groups', () => {
    const change = item({
      actorEmail: 'alice@example.com',
      actorGroups: ['oidc:platform', 'system:authenticated'],
      authenticatedBy: 'oidc',
    });
    expect(changePerson(change)).toEqual({
      name: 'oidc:alice',
      email: 'alice@example.com',
      groups: ['oidc:platform', 'system:authenticated'],
      signedIn: 'signed in with OIDC',
    });
    expect(changePersonTitle(change)).toBe('alice@example.com, signed in with OIDC');
  });

  it('says how a ServiceAccount and a static token signed in', () => {
    expect(changePerson(item({ authenticatedBy: 'serviceaccount' })).signedIn).toBe(
      'signed in with ServiceAccount',
    );
    expect(changePerson(item({ actor: 'ci', authenticatedBy: 'static-token' }))).toEqual({
      name: 'ci',
      email: null,
      groups: [],
      signedIn: 'signed in with token',
    });
    expect(changePersonTitle(item({ authenticatedBy: 'static-token' }))).toBe('signed in with token');
  });

  it('says nothing it does not know: an older record, another door, an unknown actor', () => {
    expect(changePerson(item({ actor: '', door: 'unknown' }))).toEqual({
      name: null,
      email: null,
      groups: [],
      signedIn: null,
    });
    expect(changePersonTitle(item({}))).toBeUndefined();
  });
});

describe('what kube-apiserver saw', () => {
  it('names the user it acted as, their groups and who impersonated them', () => {
    expect(
      kubeSaw(
        item({
          kubeActor: 'oidc:alice',
          kubeUser: 'system:serviceaccount:ngx:control-plane',
          kubeGroups: ['oidc:platform'],
          impersonator: 'system:serviceaccount:ngx:control-plane',
        }),
      ),
    ).toBe('oidc:alice [oidc:platform], impersonated by system:serviceaccount:ngx:control-plane');
  });

  it('names the user of a write made without impersonation, and nothing when it has no record', () => {
    expect(kubeSaw(item({ kubeActor: 'admin', kubeUser: 'admin', kubeGroups: ['system:masters'] }))).toBe(
      'admin [system:masters]',
    );
    expect(kubeSaw(item({ kubeUser: 'system:serviceaccount:ngx:control-plane', kubeGroups: [] }))).toBe(
      'system:serviceaccount:ngx:control-plane',
    );
    expect(kubeSaw(item({}))).toBeNull();
  });
});
