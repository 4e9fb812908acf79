import { describe, expect, it } from 'vitest';
import { accessRefusal, callerWithGrants, mayAccessNamespace, rbacCaller, type Caller } from './roles.js';

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

describe('callers with grants (a policy names an identity)', () => {
  it('allow what any grant allows where it holds, and show their highest role and every namespace', () => {
    const caller = callerWithGrants('alice', [
      { role: 'viewer' },
      { role: 'editor', namespaces: ['team-a'] },
    ])!;
    expect(caller).toMatchObject({ name: 'alice', role: 'editor' });
    expect(caller.namespaces).toBeUndefined();
    expect(accessRefusal(caller, 'viewer', { namespace: undefined })).toBeUndefined();
    expect(accessRefusal(caller, 'editor', { namespace: 'team-a' })).toBeUndefined();
    expect(accessRefusal(caller, 'editor', { namespace: 'team-b' })).toBe('namespace');
    expect(accessRefusal(caller, 'admin', { namespace: 'team-a' })).toBe('role');
    expect(mayAccessNamespace(caller, 'team-b')).toBe(true);

    const limited = callerWithGrants('bob', [
      { role: 'editor', namespaces: ['team-b'] },
      { role: 'viewer', namespaces: ['team-a'] },
    ])!;
    expect(limited).toMatchObject({ role: 'editor', namespaces: ['team-a', 'team-b'] });
    expect(accessRefusal(limited, 'editor', { namespace: 'team-a' })).toBe('namespace');
    expect(mayAccessNamespace(limited, undefined)).toBe(false);
    expect(callerWithGrants('nobody', [])).toBeUndefined();
    expect(callerWithGrants('one', [{ role: 'admin', namespaces: ['x'] }])).toEqual({
      name: 'one',
      role: 'admin',
      namespaces: ['x'],
    });
  });
});

describe('rbacCaller', () => {
  it('holds none of our roles: every check of them refuses it', () => {
    const caller = rbacCaller('alice');
    expect(caller).toMatchObject({ name: 'alice', rbac: true, grants: [] });
    expect(accessRefusal(caller, 'viewer')).toBe('role');
    expect(mayAccessNamespace(caller, 'team-a')).toBe(false);
  });
});
