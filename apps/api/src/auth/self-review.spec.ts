import { describe, expect, it } from 'vitest';
import { rbacCaller } from './roles.js';
import { clusterQuestion, reviewAccess, userInfo } from './self-review.js';

const viewer = { name: 'ada', role: 'viewer' as const };
const editor = { name: 'eve', role: 'editor' as const, namespaces: ['team-a'] };
const admin = { name: 'ann', role: 'admin' as const };
const nginx = { group: 'mycompany.com', resource: 'nginxes' };

describe('reviewAccess', () => {
  it.each([
    [viewer, { ...nginx, verb: 'list' }, true],
    [viewer, { ...nginx, verb: 'watch', namespace: 'x' }, true],
    [viewer, { ...nginx, verb: 'create', namespace: 'x' }, false],
    [editor, { ...nginx, verb: 'create', namespace: 'team-a' }, true],
    [editor, { ...nginx, verb: 'list' }, false], // every namespace
    [editor, { ...nginx, verb: 'get', namespace: 'team-b' }, false],
    [editor, { ...nginx, verb: 'update', subresource: 'scale', namespace: 'team-a' }, true],
    [editor, { ...nginx, verb: 'update', subresource: 'status', namespace: 'team-a' }, false],
    [admin, { ...nginx, verb: 'patch', subresource: 'status' }, true],
    [admin, { ...nginx, verb: 'deletecollection' }, true],
    [viewer, { ...nginx, verb: 'deletecollection', namespace: 'x' }, false],
    [admin, { ...nginx, verb: 'escalate' }, false],
    [admin, { ...nginx, verb: 'get', subresource: 'exec' }, false],
    [admin, { group: '', resource: 'pods', verb: 'get' }, false],
    [admin, { group: 'mycompany.com', resource: 'constructor', verb: 'get' }, false],
    [admin, { ...nginx, verb: 'toString' }, false],
  ])('%j may %j: %s', (caller, attributes, allowed) => {
    expect(reviewAccess(caller, attributes).allowed).toBe(allowed);
  });

  it('says why not', () => {
    expect(reviewAccess(viewer, { ...nginx, verb: 'delete' }).reason).toBe(
      'ada has role viewer; delete needs editor',
    );
    expect(reviewAccess(editor, { ...nginx, verb: 'get', namespace: 'x' }).reason).toContain('limited to');
  });

  it('names the token, its role and its namespaces', () => {
    expect(userInfo(editor)).toEqual({
      username: 'eve',
      groups: ['nginx-control-plane:editor', 'system:authenticated'],
      extra: { 'mycompany.com/namespaces': ['team-a'] },
    });
    expect(userInfo(viewer)).not.toHaveProperty('extra');
  });
});

describe('userInfo of an identity', () => {
  it('names a person as kube-apiserver does: username and groups, system:authenticated once', () => {
    const caller = {
      name: 'oidc:alice',
      role: 'editor' as const,
      identity: {
        username: 'oidc:alice',
        groups: ['oidc:team-a', 'system:authenticated'],
        authenticatedBy: 'oidc' as const,
      },
    };
    expect(userInfo(caller)).toEqual({
      username: 'oidc:alice',
      groups: ['oidc:team-a', 'system:authenticated'],
    });
  });
});

describe('with the cluster’s RBAC deciding', () => {
  it('puts the same request on Nginxes to the cluster, and answers anything else not allowed at once', () => {
    expect(clusterQuestion({ ...nginx, verb: 'patch', namespace: 'team-a', subresource: 'scale' })).toEqual({
      verb: 'patch',
      namespace: 'team-a',
      subresource: 'scale',
    });
    expect(clusterQuestion({ ...nginx, verb: 'list' })).toEqual({ verb: 'list' });
    expect(clusterQuestion({ group: '', resource: 'pods', verb: 'get' })).toMatchObject({ allowed: false });
    expect(clusterQuestion({ ...nginx, verb: 'escalate' })).toMatchObject({ allowed: false });
    expect(clusterQuestion({ ...nginx, verb: 'get', subresource: 'exec' })).toMatchObject({ allowed: false });
  });

  it('says who the caller is to the cluster in whoami', () => {
    expect(userInfo(rbacCaller('ci'))).toEqual({
      username: 'nginx-control-plane:token:ci',
      groups: ['system:authenticated'],
    });
  });
});
