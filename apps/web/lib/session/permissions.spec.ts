import type { Identity } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { canWrite, writeRefusal } from './permissions';

const identity = (role: Identity['role'], namespaces: string[] | null): Identity => ({
  name: 'pat',
  role,
  namespaces,
  watchNamespace: null,
});

describe('writeRefusal', () => {
  it('lets an editor or admin of every namespace write anywhere', () => {
    expect(writeRefusal(identity('editor', null), 'team-b')).toBeNull();
    expect(writeRefusal(identity('admin', null))).toBeNull();
  });

  it('names the role when a viewer would write, in any namespace', () => {
    expect(writeRefusal(identity('viewer', null), 'team-a')).toMatch(/pat is a viewer/);
    expect(canWrite(identity('viewer', null))).toBe(false);
  });

  it('names the namespaces an editor limited to some may write in', () => {
    const limited = identity('editor', ['team-a']);
    expect(writeRefusal(limited, 'team-a')).toBeNull();
    expect(writeRefusal(limited, 'team-b')).toBe(
      'Read-only here: pat (editor) can change Nginxes only in team-a, not in team-b.',
    );
    expect(canWrite(limited, 'team-b')).toBe(false);
  });

  it('refuses when nobody is signed in', () => {
    expect(writeRefusal(undefined, 'team-a')).toBe('You are not signed in.');
  });
});

describe('writeRefusal with the cluster deciding (AUTHORIZATION=kubernetes)', () => {
  const rbac = (
    role: Identity['role'],
    namespaces: string[] | null,
    writableNamespaces: string[] | null,
  ): Identity => ({ ...identity(role, namespaces), authorization: 'kubernetes', writableNamespaces });

  it('writes where RBAC lets it patch, even where it sees more', () => {
    const alice = rbac('editor', null, ['team-a']);
    expect(writeRefusal(alice, 'team-a')).toBeNull();
    expect(writeRefusal(alice, 'team-b')).toBe(
      "Read-only here: the cluster's RBAC lets pat change Nginxes only in team-a, not in team-b.",
    );
    expect(canWrite(rbac('editor', ['team-a'], null), 'team-b')).toBe(true);
  });

  it('reads only when RBAC lets it patch nowhere', () => {
    expect(writeRefusal(rbac('viewer', null, []), 'team-a')).toMatch(/RBAC does not let pat patch Nginxes/);
  });
});
