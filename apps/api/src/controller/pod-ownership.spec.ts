import type { V1Pod } from '@kubernetes/client-node';
import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { owningNginxKey } from '../kube/pod-index.js';
import { claimPods, isMislabelled, matchesSelector } from './pod-ownership.js';
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
      labels: extra.label ? { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': extra.label } : {},
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

describe('claiming with the full selector', () => {
  const mine = { kind: 'Nginx', name: 'web', uid: 'u-web' };
  const labelled = (name: string, labels: Record<string, string>, controller?: typeof mine): V1Pod => ({
    metadata: {
      name,
      namespace: 'default',
      labels,
      ...(controller ? { ownerReferences: [{ apiVersion: 'x', controller: true, ...controller }] } : {}),
    },
  });

  it('adopts only orphans matching every label of status.selector, and releases owned pods missing one', () => {
    const { owned, orphans, mislabelled } = claimPods(nginx, [
      labelled('half-orphan', { 'mycompany.com/nginx': 'web' }),
      labelled('other-app', { 'app.kubernetes.io/name': 'api', 'mycompany.com/nginx': 'web' }),
      labelled('full-orphan', { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': 'web' }),
      labelled('owned-half', { 'mycompany.com/nginx': 'web' }, mine),
      labelled('owned-full', { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': 'web' }, mine),
    ]);
    expect(orphans.map((p) => p.metadata?.name)).toEqual(['full-orphan']);
    expect(owned.map((p) => p.metadata?.name)).toEqual(['owned-full']);
    expect(mislabelled.map((p) => p.metadata?.name)).toEqual(['owned-half']);
  });

  it('matches labels by own properties only', () => {
    const sneaky = labelled(
      'sneaky',
      Object.create({ 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': 'web' }) as Record<
        string,
        string
      >,
    );
    expect(matchesSelector(sneaky, 'web')).toBe(false);
    expect(isMislabelled(labelled('x', {}, mine), 'u-web', 'web')).toBe(true);
    expect(isMislabelled(labelled('x', {}, mine), 'u-other', 'web')).toBe(false);
  });
});

describe('StrayPods', () => {
  const stray = (uid: string, owner = 'u-web'): V1Pod => ({
    metadata: {
      name: uid,
      namespace: 'default',
      uid,
      ownerReferences: [{ apiVersion: 'x', kind: 'Nginx', name: 'web', uid: owner, controller: true }],
    },
  });

  it('keeps each candidate until it is settled, without duplicates', () => {
    const strays = new StrayPods();
    strays.add('default/web', stray('a'));
    strays.add('default/web', stray('a'));
    strays.add('default/web', stray('b'));
    strays.add('default/api', stray('c'));
    expect(strays.candidates('default/web').map((p) => p.metadata?.uid)).toEqual(['a', 'b']);
    expect(strays.candidates('default/web')).toHaveLength(2); // looking is not settling
    strays.settle('default/web', 'a');
    expect(strays.candidates('default/web').map((p) => p.metadata?.uid)).toEqual(['b']);
    strays.forget('default/api');
    expect(strays.candidates('default/api')).toEqual([]);
    expect(strays.owners()).toEqual(['default/web']);
    expect(strays.size).toBe(1);
  });

  it('on a recheck drops the candidates that are gone, replaced, released or matching again, and keeps the rest', async () => {
    const strays = new StrayPods();
    for (const uid of ['gone', 'replaced', 'released', 'matching', 'stray', 'unknown'])
      strays.add('default/web', stray(uid));
    await strays.recheck(async (candidate) => {
      const uid = candidate.metadata!.uid!;
      if (uid === 'gone') return undefined;
      if (uid === 'unknown') throw new Error('the API server is away');
      const current = structuredClone(stray(uid));
      if (uid === 'replaced') current.metadata!.uid = 'new';
      if (uid === 'released') current.metadata!.ownerReferences = [];
      if (uid === 'matching')
        current.metadata!.labels = { 'app.kubernetes.io/name': 'nginx', 'mycompany.com/nginx': 'web' };
      return current;
    });
    expect(strays.candidates('default/web').map((p) => p.metadata?.uid)).toEqual(['stray', 'unknown']);
  });
});
