import type { Nginx } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { nextSort, visibleRows } from './nginx-list-rows';

const nginx = (
  namespace: string,
  name: string,
  replicas: number,
  updated: number,
  image?: string,
): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { namespace, name },
  spec: { replicas, ...(image ? { image } : {}) },
  status: { updatedReplicas: updated, readyReplicas: updated },
});

const all = [
  nginx('b', 'web', 2, 2),
  nginx('a', 'web', 4, 1, 'nginx:1.27'),
  nginx('a', 'api', 2, 1),
  nginx('a', 'idle', 0, 0),
];
const names = (rows: Nginx[]) => rows.map((n) => `${n.metadata.namespace}/${n.metadata.name}`);

describe('visibleRows', () => {
  it('sorts by name, namespace breaking ties, both ways', () => {
    expect(names(visibleRows(all, '', { key: 'name', dir: 'asc' }))).toEqual([
      'a/api',
      'a/idle',
      'a/web',
      'b/web',
    ]);
    expect(names(visibleRows(all, '', { key: 'name', dir: 'desc' }))).toEqual([
      'a/web',
      'b/web',
      'a/idle',
      'a/api',
    ]);
  });

  it('sorts by the up-to-date share of desired pods, nothing desired counting as all there', () => {
    expect(names(visibleRows(all, '', { key: 'updated', dir: 'asc' }))).toEqual([
      'a/web',
      'a/api',
      'a/idle',
      'b/web',
    ]);
  });

  it('filters on name, namespace or image, trimmed and case-insensitive, without touching the input', () => {
    const input = all.slice();
    expect(names(visibleRows(input, ' NGINX:1.27 ', { key: 'name', dir: 'asc' }))).toEqual(['a/web']);
    expect(names(visibleRows(input, 'AP', { key: 'name', dir: 'asc' }))).toEqual(['a/api']);
    expect(input).toEqual(all);
  });
});

describe('nextSort', () => {
  it('flips the direction on the same column and starts ascending on another', () => {
    expect(nextSort({ key: 'name', dir: 'asc' }, 'name')).toEqual({ key: 'name', dir: 'desc' });
    expect(nextSort({ key: 'name', dir: 'desc' }, 'updated')).toEqual({ key: 'updated', dir: 'asc' });
  });
});
