import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allows } from './roles.js';
import {
  TokenStore,
  bootstrapAdminToken,
  checkTokenSettings,
  combineTokenSources,
  tokensFromEnv,
  tokensFromFile,
} from './token-store.js';

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

  it('refuses a token repeated across AUTH_TOKENS_FILE and AUTH_TOKENS, naming the entries, not the token', () => {
    const file = join(dir(), 'tokens.yaml');
    writeFileSync(file, 'tokens:\n  - { name: ada, role: viewer, token: shared-secret-0123456789 }\n');
    const sources = [
      { source: `AUTH_TOKENS_FILE ${file}`, entries: tokensFromFile(file) },
      {
        source: 'AUTH_TOKENS',
        entries: tokensFromEnv('eve:editor:editor-token-0123456789,root:admin:shared-secret-0123456789'),
      },
    ];
    let message = '';
    try {
      combineTokenSources(sources);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toBe(
      `AUTH_TOKENS: token #2 (root) has the same token as AUTH_TOKENS_FILE ${file}: token #1 (ada): ` +
        'every token must be different',
    );
    expect(message).not.toContain('shared-secret');
  });

  it('refuses a token repeated within one source, and a name used in two sources', () => {
    expect(() =>
      combineTokenSources([
        {
          source: 'AUTH_TOKENS',
          entries: tokensFromEnv('ada:viewer:same-token-0123456789,bob:admin:same-token-0123456789'),
        },
      ]),
    ).toThrow(/^AUTH_TOKENS: token #2 \(bob\) has the same token as AUTH_TOKENS: token #1 \(ada\)/);
    expect(() =>
      combineTokenSources([
        { source: 'AUTH_TOKENS_FILE f', entries: tokensFromEnv('ada:viewer:viewer-token-0123456789') },
        { source: 'AUTH_TOKENS', entries: tokensFromEnv('ada:admin:admin-token-0123456789') },
      ]),
    ).toThrow('AUTH_TOKENS: token #1 (ada): the name ada is also used by AUTH_TOKENS_FILE f: token #1 (ada)');
  });

  it('combines distinct tokens from both sources in order', () => {
    const entries = combineTokenSources([
      { source: 'AUTH_TOKENS_FILE f', entries: tokensFromEnv('ada:viewer:viewer-token-0123456789') },
      { source: 'AUTH_TOKENS', entries: tokensFromEnv('eve:editor:editor-token-0123456789') },
    ]);
    expect(entries.map((entry) => entry.name)).toEqual(['ada', 'eve']);
  });

  it('creates the directory of a generated admin token 0700', () => {
    const path = join(dir(), 'nested', '.data', 'admin-token');
    bootstrapAdminToken(path);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(statSync(join(path, '..', '..')).mode & 0o777).toBe(0o700);
  });

  it.each([0o644, 0o640, 0o604, 0o620, 0o700])(
    'refuses to reuse an admin token file of mode %s, saying what to do',
    (mode) => {
      const path = join(dir(), 'admin-token');
      const { entry } = bootstrapAdminToken(path);
      chmodSync(path, mode);
      let message = '';
      try {
        bootstrapAdminToken(path);
      } catch (error) {
        message = (error as Error).message;
      }
      if (mode === 0o700) {
        // The owner's own bits do not matter; group and others' do.
        expect(message).toBe('');
        return;
      }
      expect(message).toContain(`${path} is open to group or others (mode 0${mode.toString(8)})`);
      expect(message).toContain(`chmod 600 ${path}`);
      expect(message).not.toContain(entry.token);
      expect(readFileSync(path, 'utf8').trim()).toBe(entry.token);
    },
  );

  it('refuses an admin token path that is a symlink', () => {
    const base = dir();
    writeFileSync(join(base, 'elsewhere'), 'some-token-0123456789abcdef\n', { mode: 0o600 });
    symlinkSync(join(base, 'elsewhere'), join(base, 'admin-token'));
    expect(() => bootstrapAdminToken(join(base, 'admin-token'))).toThrow(/must be a plain file/);
  });

  it('checks the token settings before start without writing anything', () => {
    const adminTokenPath = join(dir(), '.data', 'admin-token');
    const none = { tokensFile: undefined, tokens: undefined, adminTokenPath };
    expect(() => checkTokenSettings(none)).not.toThrow();
    expect(existsSync(join(adminTokenPath, '..'))).toBe(false);
    expect(() =>
      checkTokenSettings({ ...none, tokens: 'a:viewer:same-token-0123456789,b:admin:same-token-0123456789' }),
    ).toThrow(/has the same token as/);
    bootstrapAdminToken(adminTokenPath);
    chmodSync(adminTokenPath, 0o640);
    expect(() => checkTokenSettings(none)).toThrow(/is open to group or others/);
    // Configured tokens make the admin-token file irrelevant.
    expect(() => checkTokenSettings({ ...none, tokens: 'a:viewer:viewer-token-0123456789' })).not.toThrow();
  });

  it('orders roles viewer < editor < admin', () => {
    expect(allows('admin', 'editor')).toBe(true);
    expect(allows('editor', 'editor')).toBe(true);
    expect(allows('viewer', 'editor')).toBe(false);
    expect(allows('editor', 'admin')).toBe(false);
  });
});
