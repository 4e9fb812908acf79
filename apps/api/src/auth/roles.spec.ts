import { describe, expect, it } from 'vitest';
import { accessRefusal, type Caller } from './roles.js';

const viewer: Caller = { name: 'v', role: 'viewer' };
const limited: Caller = { name: 'l', role: 'editor', namespaces: ['team-a'] };

describe('accessRefusal', () => {
  it('refuses a role below what the request needs, before anything else', () => {
    expect(accessRefusal(viewer, 'editor')).toBe('role');
    expect(accessRefusal(limited, 'admin', { namespace: 'team-b' })).toBe('role');
  });

  it('refuses a token limited to namespaces elsewhere, or everywhere at once, on a namespaced route', () => {
    expect(accessRefusal(limited, 'viewer', { namespace: 'team-b' })).toBe('namespace');
    expect(accessRefusal(limited, 'viewer', { namespace: undefined })).toBe('namespace');
  });

  it('lets the rest through', () => {
    expect(accessRefusal(limited, 'editor', { namespace: 'team-a' })).toBeUndefined();
    expect(accessRefusal(limited, 'viewer')).toBeUndefined(); // a route that names no namespace
    expect(accessRefusal(viewer, 'viewer', { namespace: undefined })).toBeUndefined();
  });
});
