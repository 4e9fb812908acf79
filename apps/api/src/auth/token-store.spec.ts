import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allows } from './roles.js';
import { TokenStore, bootstrapAdminToken, tokensFromEnv, tokensFromFile } from './token-store.js';

const dir = () => mkdtempSync(join(tmpdir(), 'ngx-tokens-'));

describe('tokens', () => {
  it('reads AUTH_TOKENS and a YAML file, and identifies callers by token', () => {
    const file = join(dir(), 'tokens.yaml');
    writeFileSync(file, 'tokens:\n  - { name: ada, role: viewer, token: viewer-token-0123456789 }\n');
    const store = new TokenStore([
      ...tokensFromFile(file),
      ...tokensFromEnv('eve:editor:editor-token-0123456789'),
    ]);
    expect(store.identify('viewer-token-0123456789')).toEqual({ name: 'ada', role: 'viewer' });
    expect(store.identify('editor-token-0123456789')).toEqual({ name: 'eve', role: 'editor' });
    expect(store.identify('editor-token-012345678')).toBeUndefined();
    expect(store.identify('')).toBeUndefined();
  });

  it.each([
    ['eve:editor:short', /at least 16 characters/],
    ['eve:root:editor-token-0123456789', /role must be viewer, editor or admin/],
    [':editor:editor-token-0123456789', /needs a name/],
    ['eve:editor:editor-token-0123456789,eve:viewer:viewer-token-0123456789', /used twice/],
  ])('refuses %s', (raw, message) => {
    expect(() => tokensFromEnv(raw)).toThrow(message);
  });

  it('limits a token from a file to its namespaces', () => {
    const file = join(dir(), 'tokens.yaml');
    writeFileSync(
      file,
      'tokens:\n  - { name: lee, role: editor, token: limited-token-0123456789, namespaces: [team-a, team-b] }\n',
    );
    expect(new TokenStore(tokensFromFile(file)).identify('limited-token-0123456789')).toEqual({
      name: 'lee',
      role: 'editor',
      namespaces: ['team-a', 'team-b'],
    });
    writeFileSync(
      file,
      'tokens:\n  - { name: lee, role: editor, token: limited-token-0123456789, namespaces: [Team_A] }\n',
    );
    expect(() => tokensFromFile(file)).toThrow(/namespaces must be a non-empty list/);
  });

  it('refuses a token file that is not YAML or has no list', () => {
    const file = join(dir(), 'tokens.yaml');
    writeFileSync(file, 'tokens: {');
    expect(() => tokensFromFile(file)).toThrow(/AUTH_TOKENS_FILE/);
    writeFileSync(file, 'tokens: 3');
    expect(() => tokensFromFile(file)).toThrow(/expected a list/);
  });

  it('generates an admin token once, mode 0600, and reuses it', () => {
    const path = join(dir(), 'admin-token');
    const first = bootstrapAdminToken(path);
    expect(first.created).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8').trim()).toBe(first.entry.token);
    const second = bootstrapAdminToken(path);
    expect(second).toEqual({ entry: first.entry, created: false });
  });

  it('orders roles viewer < editor < admin', () => {
    expect(allows('admin', 'editor')).toBe(true);
    expect(allows('editor', 'editor')).toBe(true);
    expect(allows('viewer', 'editor')).toBe(false);
    expect(allows('editor', 'admin')).toBe(false);
  });
});
