import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../generated/prisma-sqlite/index.js';
import { exportSerializer } from './audit-export.js';
import { CHANGE_COLUMNS, changeItem, JSON_COLUMNS } from './audit-items.js';

const record = (overrides: Partial<ChangeRecord>): ChangeRecord => ({
  id: 1,
  at: new Date('2026-11-26T10:00:00Z'),
  actor: 'eve',
  role: 'editor',
  actorEmail: null,
  actorGroups: null,
  authenticatedBy: null,
  verb: 'patch',
  namespace: 'shop',
  name: 'web',
  subresource: null,
  patchType: 'application/merge-patch+json',
  specBefore: '{"replicas":1}',
  specAfter: '{"replicas":2}',
  code: 200,
  reason: null,
  message: null,
  uid: 'u',
  resourceVersion: '5',
  userAgent: 'curl/8',
  door: 'controlplane',
  source: 'controlplane',
  auditId: 'ngx-rest-1',
  kubeUser: null,
  kubeGroups: null,
  impersonator: null,
  fieldManager: 'curl',
  generation: 2,
  joinKey: 'request:ngx-rest-1',
  completes: null,
  dedupeKey: null,
  chainSeq: 1,
  hash: null,
  ...overrides,
});

describe('changeItem', () => {
  it("folds kube-apiserver's record of a relayed write into the control plane's: one change, both identities", () => {
    const item = changeItem(record({}), [
      record({
        id: 9,
        actor: 'admin',
        role: '',
        source: 'audit-webhook',
        kubeUser: 'admin',
        kubeGroups: '["system:masters"]',
        completes: 1,
      }),
    ]);
    expect(item).toMatchObject({
      id: 1,
      actor: 'eve',
      role: 'editor',
      door: 'controlplane',
      sources: ['controlplane', 'audit-webhook'],
      kubeUser: 'admin',
      kubeGroups: ['system:masters'],
      kubeActor: 'admin',
      specBefore: { replicas: 1 },
    });
    expect(item).not.toHaveProperty('joinKey');
    expect(item).not.toHaveProperty('completes');
  });

  it('takes the actor, verb and door from a later record when the first did not know them', () => {
    const first = record({
      actor: '',
      role: '',
      door: 'unknown',
      source: 'informer',
      verb: 'update',
      auditId: null,
      fieldManager: 'kubectl-edit',
    });
    const later = record({
      id: 3,
      actor: 'jane',
      role: '',
      door: 'kube-apiserver',
      source: 'audit-log',
      verb: 'patch',
      auditId: 'k-1',
      completes: 1,
    });
    expect(changeItem(first, [later])).toMatchObject({
      actor: 'jane',
      role: null,
      verb: 'patch',
      door: 'kube-apiserver',
      auditId: 'k-1',
      fieldManager: 'kubectl-edit',
      sources: ['informer', 'audit-log'],
    });
    expect(changeItem(first)).toMatchObject({ actor: '', door: 'unknown', sources: ['informer'] });
  });

  it("names the person of our record beside what kube-apiserver's record of the same write saw", () => {
    const ours = record({
      actor: 'oidc:alice',
      actorEmail: 'alice@example.com',
      actorGroups: '["oidc:platform","system:authenticated"]',
      authenticatedBy: 'oidc',
    });
    const kubes = record({
      id: 9,
      actor: 'oidc:alice',
      role: '',
      source: 'audit-webhook',
      kubeUser: 'system:serviceaccount:ngx:control-plane',
      kubeGroups: '["system:serviceaccounts"]',
      impersonator: 'system:serviceaccount:ngx:control-plane',
      completes: 1,
    });
    expect(changeItem(ours, [kubes])).toMatchObject({
      actor: 'oidc:alice',
      role: 'editor',
      actorEmail: 'alice@example.com',
      actorGroups: ['oidc:platform', 'system:authenticated'],
      authenticatedBy: 'oidc',
      kubeUser: 'system:serviceaccount:ngx:control-plane',
      kubeGroups: ['system:serviceaccounts'],
      impersonator: 'system:serviceaccount:ngx:control-plane',
      kubeActor: 'oidc:alice',
    });
    expect(changeItem(ours)).toMatchObject({ kubeActor: null, impersonator: null });
  });

  it('answers null for a record stored before the audit named people, and for a way of signing in it does not know', () => {
    expect(changeItem(record({}))).toMatchObject({
      actorEmail: null,
      actorGroups: null,
      authenticatedBy: null,
    });
    expect(changeItem(record({ authenticatedBy: 'kerberos', actorGroups: 'not json' }))).toMatchObject({
      authenticatedBy: null,
      actorGroups: null,
    });
    expect(changeItem(record({ authenticatedBy: 'static-token' }))).toMatchObject({
      authenticatedBy: 'static-token',
      actorGroups: null,
    });
  });

  it('takes the person with the actor from a later record when the first (the informer) did not know them', () => {
    const informer = record({ actor: '', role: '', door: 'unknown', source: 'informer' });
    const ours = record({
      id: 3,
      actor: 'system:serviceaccount:ci:deployer',
      actorGroups: '["system:serviceaccounts"]',
      authenticatedBy: 'serviceaccount',
      completes: 1,
    });
    expect(changeItem(informer, [ours])).toMatchObject({
      actor: 'system:serviceaccount:ci:deployer',
      actorGroups: ['system:serviceaccounts'],
      authenticatedBy: 'serviceaccount',
    });
  });

  it('exports the person: the address, the groups as JSON text and how they signed in, at the end of the CSV', () => {
    const item = changeItem(
      record({ actorEmail: 'alice@example.com', actorGroups: '["platform"]', authenticatedBy: 'oidc' }),
    );
    const csv = exportSerializer('csv', CHANGE_COLUMNS, JSON_COLUMNS);
    expect(csv.header.trimEnd().split(',').slice(-4)).toEqual([
      'actorEmail',
      'actorGroups',
      'authenticatedBy',
      'kubeActor',
    ]);
    expect(csv.lines([item]).trimEnd().endsWith(',alice@example.com,"[""platform""]",oidc,')).toBe(true);
    expect(JSON.parse(exportSerializer('ndjson', CHANGE_COLUMNS).lines([item]))).toMatchObject({
      actorEmail: 'alice@example.com',
      actorGroups: ['platform'],
      authenticatedBy: 'oidc',
    });
  });

  it('lists every field of a change in the CSV columns', () => {
    expect([...CHANGE_COLUMNS].sort()).toEqual(Object.keys(changeItem(record({}))).sort());
  });
});
