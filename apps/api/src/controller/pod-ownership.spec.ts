import type { V1Pod } from '@kubernetes/client-node';
import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { claimPods, owningNginxKey } from './pod-ownership.js';
import { StrayPods } from './stray-pods.js';

const nginx: Nginx = {
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'default', uid: 'u-web' },
  spec: { replicas: 1 },
};

function pod(
  name: string,
  extra: {
    label?: string;
    controller?: { kind: string; name: string; uid: string };
    deleting?: boolean;
  } = {},
): V1Pod {
  return {
    metadata: {
      name,
      namespace: 'default',
      labels: extra.label ? { 'mycompany.com/nginx': extra.label } : {},
      ...(extra.controller
        ? { ownerReferences: [{ apiVersion: 'x', controller: true, ...extra.controller }] }
        : {}),
      ...(extra.deleting ? { deletionTimestamp: new Date() } : {}),
    },
  };
}

describe('pod ownership', () => {
  it('finds the owning Nginx by controller reference first, then by label', () => {
    expect(
      owningNginxKey(pod('a', { controller: { kind: 'Nginx', name: 'web', uid: 'u-web' }, label: 'other' })),
    ).toBe('default/web');
    expect(owningNginxKey(pod('b', { label: 'web' }))).toBe('default/web');
    expect(
      owningNginxKey(pod('c', { controller: { kind: 'ReplicaSet', name: 'rs', uid: 'u-rs' }, label: 'web' })),
    ).toBeUndefined();
    expect(owningNginxKey(pod('d'))).toBeUndefined();
  });

  it('claims pods it controls and orphans with its label, and leaves others alone', () => {
    const { owned, orphans } = claimPods(nginx, [
      pod('mine', { controller: { kind: 'Nginx', name: 'web', uid: 'u-web' }, label: 'web' }),
      pod('orphan', { label: 'web' }),
      pod('orphan-going', { label: 'web', deleting: true }),
      pod('old-web', { controller: { kind: 'Nginx', name: 'web', uid: 'u-previous-web' }, label: 'web' }),
      pod('theirs', { controller: { kind: 'ReplicaSet', name: 'rs', uid: 'u-rs' }, label: 'web' }),
      pod('other-label', { label: 'api' }),
    ]);
    expect(owned.map((p) => p.metadata?.name)).toEqual(['mine']);
    expect(orphans.map((p) => p.metadata?.name)).toEqual(['orphan']);
  });

  it('releases pods it controls whose label now names another Nginx, unless they are going anyway', () => {
    const mine = { kind: 'Nginx', name: 'web', uid: 'u-web' };
    const { owned, mislabelled } = claimPods(nginx, [
      pod('kept', { controller: mine, label: 'web' }),
      pod('moved', { controller: mine, label: 'api' }),
      pod('moved-going', { controller: mine, label: 'api', deleting: true }),
    ]);
    expect(owned.map((p) => p.metadata?.name)).toEqual(['kept']);
    expect(mislabelled.map((p) => p.metadata?.name)).toEqual(['moved']);
  });
});

describe('StrayPods', () => {
  const stray = (uid: string): V1Pod => ({ metadata: { name: uid, namespace: 'default', uid } });

  it('hands each owner its strays once, without duplicates', () => {
    const strays = new StrayPods();
    strays.add('default/web', stray('a'));
    strays.add('default/web', stray('a'));
    strays.add('default/web', stray('b'));
    strays.add('default/api', stray('c'));
    expect(strays.take('default/web').map((p) => p.metadata?.uid)).toEqual(['a', 'b']);
    expect(strays.take('default/web')).toEqual([]);
    strays.forget('default/api');
    expect(strays.take('default/api')).toEqual([]);
  });
});
