import { describe, expect, it } from 'vitest';
import type { ChangeRecord } from '../../generated/prisma-sqlite/index.js';
import { changeItem } from './audit-items.js';

const record = (overrides: Partial<ChangeRecord>): ChangeRecord => ({
  id: 1,
  at: new Date('2026-11-26T10:00:00Z'),
  actor: 'eve',
  role: 'editor',
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
});
