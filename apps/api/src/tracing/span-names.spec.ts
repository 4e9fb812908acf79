import { describe, expect, it } from 'vitest';
import { isTracedPath, keyParts, restRoute } from './span-names.js';

describe('restRoute', () => {
  it.each([
    ['/api/v1', '/api/v1'],
    ['/apis', '/apis'],
    [
      '/apis/mycompany.com/v1/namespaces/team-a/nginxes',
      '/apis/mycompany.com/v1/namespaces/{namespace}/nginxes',
    ],
    [
      '/apis/mycompany.com/v1/namespaces/team-a/nginxes/web/status',
      '/apis/mycompany.com/v1/namespaces/{namespace}/nginxes/{name}/status',
    ],
    ['/apis/mycompany.com/v1/nginxes', '/apis/mycompany.com/v1/nginxes'],
    ['/api/v1/namespaces/team-a', '/api/v1/namespaces/{namespace}'],
    ['/api/v1/nodes/kwok-1', '/api/v1/nodes/{name}'],
    [
      '/controlplane/v1/namespaces/team-a/nginxes/web/pods/web-7f9/why',
      '/controlplane/v1/namespaces/{namespace}/nginxes/{name}/pods/{id}/why',
    ],
    ['/controlplane/v1/audit/webhook', '/controlplane/v1/audit/webhook'],
  ])('%s is routed as %s', (path, route) => {
    expect(restRoute(path)).toBe(route);
  });
});

describe('isTracedPath', () => {
  it('traces the REST API and the control plane endpoints, not the UI, probes or metrics', () => {
    expect(
      ['/api/v1', '/apis/mycompany.com/v1/nginxes', '/controlplane/v1/whoami'].map(isTracedPath),
    ).toEqual([true, true, true]);
    expect(['/', '/healthz', '/metrics', '/socket.io/', '/apiary', '/_next/x.js'].map(isTracedPath)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('keyParts', () => {
  it('splits a namespaced key at its first slash, and takes a bare key as a cluster-scoped name', () => {
    expect(keyParts('team-a/web')).toEqual({ namespace: 'team-a', name: 'web' });
    expect(keyParts('web')).toEqual({ namespace: '', name: 'web' });
  });
});
