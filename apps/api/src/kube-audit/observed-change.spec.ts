import { describe, expect, it } from 'vitest';
import { observedChangeRow, observedCreate, observedDelete, observedUpdate } from './observed-change.js';

const nginx = (generation: number, resourceVersion: string, replicas: number, uid = 'u1') => ({
  metadata: { namespace: 'shop', name: 'web', uid, resourceVersion, generation },
  spec: { replicas },
});
const at = new Date('2026-11-26T10:00:00Z');

describe('observed changes', () => {
  it('takes a new generation for a change, not a metadata or status update', () => {
    expect(observedUpdate(nginx(1, '10', 1), nginx(1, '11', 1), undefined)).toBeUndefined();
    expect(observedUpdate(nginx(1, '10', 1), nginx(2, '12', 1, 'u2'), undefined)).toBeUndefined();
    const change = observedUpdate(nginx(1, '10', 1), nginx(2, '12', 3), {
      manager: 'argocd-controller',
      operation: 'Apply',
      time: '2026-11-26T09:59:59.000Z',
    });
    expect(observedChangeRow(change!, at)).toMatchObject({
      at,
      actor: '',
      role: '',
      verb: 'apply',
      door: 'unknown',
      source: 'informer',
      fieldManager: 'argocd-controller',
      uid: 'u1',
      resourceVersion: '12',
      generation: 2,
      specBefore: '{"replicas":1}',
      specAfter: '{"replicas":3}',
      joinKey: 'write:u1@12',
      dedupeKey: 'observed:write:u1@12',
      code: 200,
    });
  });

  it("records a create and a delete, whose key is the uid's (a delete's answer names no resourceVersion)", () => {
    const created = observedChangeRow(
      observedCreate(nginx(1, '10', 1), { manager: 'kubectl-create', operation: 'Update', time: undefined })!,
      at,
    );
    expect(created).toMatchObject({ verb: 'create', specBefore: null, fieldManager: 'kubectl-create' });
    const deleted = observedChangeRow(observedDelete(nginx(3, '20', 2))!, at);
    expect(deleted).toMatchObject({
      verb: 'delete',
      specBefore: '{"replicas":2}',
      specAfter: null,
      resourceVersion: null,
      joinKey: 'deleted:u1',
    });
  });
});
