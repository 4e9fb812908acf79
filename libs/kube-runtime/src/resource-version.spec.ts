import { describe, expect, it } from 'vitest';
import type { KubeRequest } from './client.js';
import { consistentResourceVersion, resourceVersionAtLeast } from './resource-version.js';

describe('resourceVersions', () => {
  it('compares etcd revisions as integers, beyond the range of doubles, and refuses to compare anything else', () => {
    expect(resourceVersionAtLeast('10', '9')).toBe(true);
    expect(resourceVersionAtLeast('9', '10')).toBe(false);
    expect(resourceVersionAtLeast('9007199254740993', '9007199254740992')).toBe(true);
    expect(resourceVersionAtLeast('abc', '1')).toBeUndefined();
    expect(resourceVersionAtLeast('', '1')).toBeUndefined();
  });

  it('reads the current resourceVersion with a one-item LIST that names no resourceVersion (a consistent read)', async () => {
    const sent: KubeRequest[] = [];
    const answer = { metadata: { resourceVersion: '42' } as { resourceVersion?: string } };
    const client = { request: async <T>(req: KubeRequest) => (sent.push(req), answer as T) };
    const pods = { group: '', version: 'v1', plural: 'pods', namespace: 'ns' };
    await expect(consistentResourceVersion(client, pods)).resolves.toBe('42');
    expect(sent).toMatchObject([{ path: '/api/v1/namespaces/ns/pods', query: { limit: 1 } }]);
    expect(sent[0]!.query).not.toHaveProperty('resourceVersion');
    answer.metadata = {};
    await expect(consistentResourceVersion(client, pods)).rejects.toThrow('no resourceVersion');
  });
});
