import { describe, expect, it } from 'vitest';
import { isApiPath } from './api-paths.js';

describe('isApiPath', () => {
  it.each([
    '/apis',
    '/apis/mycompany.com/v1/nginxes',
    '/api',
    '/controlplane/v1/audit/changes',
    '/healthz',
    '/readyz',
    '/metrics',
    '/version',
    '/openapi.json',
    '/socket.io/',
  ])('routes %s to the API', (path) => expect(isApiPath(path)).toBe(true));

  it.each(['/', '/nginxes', '/apiary', '/healthzz', '/_next/static/chunk.js', '/audit'])(
    'routes %s to the web UI',
    (path) => expect(isApiPath(path)).toBe(false),
  );
});
