import { describe, expect, it } from 'vitest';
import { clusterPermissions, MAX_NAMESPACES_ASKED } from './cluster-permissions.js';
import type { NginxAccess } from './subject-access-reviews.js';

/** RBAC as a set of "verb namespace" rows ("list *" for cluster-wide). */
const rbac =
  (...rows: string[]) =>
  async (access: NginxAccess) =>
    rows.includes(`${access.verb} ${access.namespace ?? '*'}`);

describe('clusterPermissions', () => {
  it('sees and writes everywhere with cluster-wide list and patch', async () => {
    expect(await clusterPermissions(rbac('list *', 'patch *'), ['a', 'b'])).toEqual({
      role: 'editor',
      namespaces: null,
      writableNamespaces: null,
    });
  });

  it('writes only in the namespaces where it may patch, sees where it may list', async () => {
    expect(await clusterPermissions(rbac('list *', 'patch team-a'), ['team-b', 'team-a', 'team-a'])).toEqual({
      role: 'editor',
      namespaces: null,
      writableNamespaces: ['team-a'],
    });
    expect(await clusterPermissions(rbac('list team-a'), ['team-a', 'team-b'])).toEqual({
      role: 'viewer',
      namespaces: ['team-a'],
      writableNamespaces: [],
    });
  });

  it(`asks about at most ${MAX_NAMESPACES_ASKED} namespaces, and rejects when the cluster cannot be asked`, async () => {
    const asked: NginxAccess[] = [];
    const many = Array.from({ length: 150 }, (_, i) => `ns-${String(i).padStart(3, '0')}`);
    await clusterPermissions(async (access) => (asked.push(access), false), many);
    expect(asked.filter((a) => a.verb === 'list' && a.namespace).length).toBe(MAX_NAMESPACES_ASKED);
    await expect(clusterPermissions(async () => Promise.reject(new Error('down')), ['a'])).rejects.toThrow(
      'down',
    );
  });
});
