import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/app-config.js';
import { IdentityPolicy, parsePolicy } from './identity-policy.js';
import { grantsAllow } from './roles.js';

const POLICY = `
- group: oidc:platform
  role: admin
- group: oidc:team-a
  role: editor
  namespaces: [team-a]
- user: https://dex.example.test#alice
  role: viewer
`;

describe('IdentityPolicy', () => {
  it('grants what the entries naming the user or one of the groups grant, and nothing to anyone else', () => {
    const policy = new IdentityPolicy(parsePolicy(POLICY, 'policy.yaml'));
    const alice = { username: 'https://dex.example.test#alice', groups: ['oidc:team-a'] };
    const grants = policy.grantsFor(alice);
    expect(grants).toEqual([{ role: 'viewer' }, { role: 'editor', namespaces: ['team-a'] }]);
    expect(grantsAllow(grants, 'viewer', undefined)).toBe(true); // a cluster-wide read
    expect(grantsAllow(grants, 'editor', 'team-a')).toBe(true);
    expect(grantsAllow(grants, 'editor', 'team-b')).toBe(false);
    expect(grantsAllow(grants, 'editor', undefined)).toBe(false);
    expect(grantsAllow(grants, 'admin', 'team-a')).toBe(false);
    const admin = policy.grantsFor({ username: 'bob', groups: ['oidc:platform'] });
    expect(grantsAllow(admin, 'admin', undefined)).toBe(true);
    expect(policy.grantsFor({ username: 'alice', groups: ['platform'] })).toEqual([]); // prefixes matter
    expect(parsePolicy('', 'empty.yaml')).toEqual([]);
  });

  it('refuses a policy with anything unexpected, naming the entry', () => {
    const bad = [
      ['{}', /expected a list/],
      ['- role: admin', /exactly one of user and group/],
      ['- {user: a, group: b, role: admin}', /exactly one of user and group/],
      ['- {user: a, role: owner}', /role must be/],
      ['- {user: a, role: admin, namespaces: []}', /namespaces must be/],
      ['- {user: a, role: admin, namespaces: [Not_A_Namespace]}', /namespaces must be/],
      ['- {user: a, role: admin, namspaces: [a]}', /unknown field namspaces/],
      ['- [a]', /not a mapping/],
      ['- {user: a, role: admin', /not YAML/],
    ] as const;
    for (const [text, message] of bad) {
      expect(() => parsePolicy(text, 'policy.yaml')).toThrow(ConfigError);
      expect(() => parsePolicy(text, 'policy.yaml')).toThrow(message);
    }
  });
});
