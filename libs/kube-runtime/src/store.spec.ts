import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { objectKey, splitObjectKey, stripManagedFields } from './object.js';
import { NAMESPACE_INDEX, OWNER_UID_INDEX, Store } from './store.js';

function pod(
  namespace: string,
  name: string,
  resourceVersion = '1',
  extra: Partial<V1Pod['metadata']> = {},
): V1Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { namespace, name, resourceVersion, ...extra } };
}

const owned = (uid: string) => ({
  ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid }],
});

describe('object keys', () => {
  it('are namespace/name, or name for cluster-scoped objects', () => {
    expect(objectKey(pod('default', 'web'))).toBe('default/web');
    expect(objectKey({ metadata: { name: 'kwok-node-0' } })).toBe('kwok-node-0');
    expect(splitObjectKey('default/web')).toEqual({ namespace: 'default', name: 'web' });
    expect(splitObjectKey('kwok-node-0')).toEqual({ namespace: '', name: 'kwok-node-0' });
  });

  it('refuse an object without a name', () => {
    expect(() => objectKey({ kind: 'Pod', metadata: {} })).toThrow(/no metadata.name \(kind Pod\)/);
    expect(() => objectKey({})).toThrow(/no metadata.name/);
  });
});

describe('Store', () => {
  it('adds, updates and removes by key, reporting what changed', () => {
    const store = new Store<V1Pod>();
    const first = store.upsert(store.accept(pod('default', 'a', '1')));
    expect(first).toMatchObject({ type: 'added', key: 'default/a' });
    const second = store.upsert(store.accept(pod('default', 'a', '2')));
    expect(second.type).toBe('updated');
    expect(second.previous?.metadata?.resourceVersion).toBe('1');
    expect(store.get('default/a')?.metadata?.resourceVersion).toBe('2');
    expect(store.remove('default/a')?.metadata?.resourceVersion).toBe('2');
    expect(store.remove('default/a')).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('indexes by namespace and by owner uid, following updates and removals', () => {
    const store = new Store<V1Pod>();
    store.upsert(store.accept(pod('a', 'p1', '1', owned('u1'))));
    store.upsert(store.accept(pod('a', 'p2', '1', owned('u1'))));
    store.upsert(store.accept(pod('b', 'p3', '1', owned('u2'))));
    expect(store.indexKeys(NAMESPACE_INDEX, 'a').sort()).toEqual(['a/p1', 'a/p2']);
    expect(store.indexKeys(OWNER_UID_INDEX, 'u1').sort()).toEqual(['a/p1', 'a/p2']);

    store.upsert(store.accept(pod('a', 'p2', '2', owned('u2')))); // re-owned
    expect(store.indexKeys(OWNER_UID_INDEX, 'u1')).toEqual(['a/p1']);
    expect(store.indexKeys(OWNER_UID_INDEX, 'u2').sort()).toEqual(['a/p2', 'b/p3']);

    store.remove('a/p1');
    expect(store.indexKeys(OWNER_UID_INDEX, 'u1')).toEqual([]);
    expect(store.byIndex(NAMESPACE_INDEX, 'a').map((p) => p.metadata?.name)).toEqual(['p2']);
  });

  it('supports custom indexes by function and names a missing index', () => {
    const store = new Store<V1Pod>({
      indexers: { node: (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []) },
    });
    store.upsert(store.accept({ ...pod('a', 'p1'), spec: { nodeName: 'n1', containers: [] } }));
    store.upsert(store.accept({ ...pod('a', 'p2'), spec: { containers: [] } }));
    expect(store.indexKeys('node', 'n1')).toEqual(['a/p1']);
    expect(() => store.indexKeys('zone', 'z')).toThrow(/no index named "zone"/);
  });

  it('replace() leaves exactly the given objects and reports adds, updates and deletes', () => {
    const store = new Store<V1Pod>();
    for (const p of [pod('d', 'keep', '1'), pod('d', 'change', '1'), pod('d', 'gone', '1')])
      store.upsert(store.accept(p));
    const changes = store.replace(
      [pod('d', 'keep', '1'), pod('d', 'change', '2'), pod('d', 'new', '1')].map((p) => store.accept(p)),
    );
    expect(changes.map((c) => `${c.type}:${c.key}`).sort()).toEqual([
      'added:d/new',
      'deleted:d/gone',
      'updated:d/change',
    ]);
    expect(store.keys().sort()).toEqual(['d/change', 'd/keep', 'd/new']);
    expect(store.indexKeys(NAMESPACE_INDEX, 'd')).toHaveLength(3);
  });

  it('hands out frozen objects: a handler cannot corrupt the cache', () => {
    const store = new Store<V1Pod>();
    const stored = store.upsert(store.accept(pod('d', 'p', '1', { labels: { app: 'web' } }))).object;
    expect(() => {
      (stored.metadata!.labels as Record<string, string>).app = 'evil';
    }).toThrow(TypeError);
    expect(() => {
      stored.metadata!.name = 'other';
    }).toThrow(TypeError);
    expect(store.get('d/p')?.metadata?.labels?.app).toBe('web');
    const copy = structuredClone(stored);
    copy.metadata!.labels!.app = 'changed';
    expect(store.get('d/p')?.metadata?.labels?.app).toBe('web');
  });

  it('runs the transform before objects enter', () => {
    const store = new Store<V1Pod>({ transform: stripManagedFields });
    const withFields = pod('d', 'p', '1', { managedFields: [{ manager: 'kubectl', operation: 'Apply' }] });
    const stored = store.upsert(store.accept(withFields)).object;
    expect(stored.metadata?.managedFields).toBeUndefined();
    expect(stored.metadata?.name).toBe('p');
  });
});
