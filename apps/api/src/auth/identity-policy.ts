import { namespaceError } from '@ngx/nginx-api';
import { parse } from 'yaml';
import { ConfigError } from '../config/app-config.js';
import type { Identity } from './identity.js';
import { isRole, type Grant } from './roles.js';

/** One entry of AUTH_POLICY_FILE: who (exactly one of `user` and `group`) gets which role where. */
export interface PolicyEntry extends Grant {
  user?: string;
  group?: string;
}

/** A policy file that cannot be used: refused at start (and, on a reload, the previous policy is kept). */
export class PolicyConfigError extends ConfigError {
  override name = 'PolicyConfigError';
}

/**
 * Parses AUTH_POLICY_FILE (YAML or JSON): a list of `{user|group, role, namespaces?}`. Names are matched exactly
 * as the identity carries them, prefixes included (`https://dex.example.test#alice`, `oidc:platform`). Anything
 * unexpected (a field it does not know, both or neither of user and group, a bad role or namespace) is an error
 * naming the entry, never silently skipped: a typo must not grant or revoke access unseen.
 */
export function parsePolicy(text: string, source: string): PolicyEntry[] {
  let entries: unknown;
  try {
    entries = parse(text);
  } catch (error) {
    throw new PolicyConfigError(`${source}: not YAML: ${(error as Error).message}`);
  }
  if (entries === null || entries === undefined) return [];
  if (!Array.isArray(entries)) throw new PolicyConfigError(`${source}: expected a list of entries`);
  return entries.map((entry: unknown, index) => {
    const where = `${source}: entry #${index + 1}`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new PolicyConfigError(`${where} is not a mapping`);
    const { user, group, role, namespaces, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length > 0) throw new PolicyConfigError(`${where}: unknown field ${unknown.join(', ')}`);
    const subjects = [user, group].filter((subject) => subject !== undefined);
    if (subjects.length !== 1 || !subjects.every((s) => typeof s === 'string' && s.length > 0))
      throw new PolicyConfigError(`${where} needs exactly one of user and group, a non-empty string`);
    if (!isRole(role)) throw new PolicyConfigError(`${where}: role must be viewer, editor or admin`);
    const subject = user !== undefined ? { user: user as string } : { group: group as string };
    if (namespaces === undefined) return { ...subject, role };
    if (
      !Array.isArray(namespaces) ||
      namespaces.length === 0 ||
      !namespaces.every((ns) => typeof ns === 'string' && namespaceError(ns) === undefined)
    )
      throw new PolicyConfigError(`${where}: namespaces must be a non-empty list of namespace names`);
    return { ...subject, role, namespaces: namespaces as string[] };
  });
}

/**
 * Who may do what, from a policy: an identity's grants are those of the entries naming its user or one of its
 * groups; an identity no entry names has none (it may sign in, and do nothing).
 */
export class IdentityPolicy {
  private readonly byUser = new Map<string, Grant[]>();
  private readonly byGroup = new Map<string, Grant[]>();

  constructor(entries: readonly PolicyEntry[]) {
    for (const { user, group, role, namespaces } of entries) {
      const grant: Grant = namespaces ? { role, namespaces } : { role };
      const [map, key] = user !== undefined ? [this.byUser, user] : [this.byGroup, group!];
      map.set(key, [...(map.get(key) ?? []), grant]);
    }
  }

  grantsFor(identity: Pick<Identity, 'username' | 'groups'>): Grant[] {
    return [
      ...(this.byUser.get(identity.username) ?? []),
      ...identity.groups.flatMap((group) => this.byGroup.get(group) ?? []),
    ];
  }
}
