import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { namespaceError } from '@ngx/nginx-api';
import { parse } from 'yaml';
import { ConfigError } from '../config/app-config.js';
import { isRole, type Caller, type Role } from './roles.js';

export interface TokenEntry {
  name: string;
  role: Role;
  token: string;
  /** Limits the token to these namespaces (from a token file); all namespaces when absent. */
  namespaces?: string[];
}

/** A token list that cannot be used: the app refuses to start, like any other configuration error. */
export class TokenConfigError extends ConfigError {
  override name = 'TokenConfigError';
}

const NAME = /^[a-z0-9]([-a-z0-9_.@]*[a-z0-9])?$/i;
/** Shortest token accepted from configuration; shorter ones are guessable. */
const MIN_TOKEN_LENGTH = 16;

function validated(entries: unknown, source: string): TokenEntry[] {
  if (!Array.isArray(entries)) throw new TokenConfigError(`${source}: expected a list of tokens`);
  const seen = new Set<string>();
  return entries.map((entry: unknown, index) => {
    const { name, role, token, namespaces } = (entry ?? {}) as Record<string, unknown>;
    const where = `${source}: token #${index + 1}`;
    if (typeof name !== 'string' || !NAME.test(name))
      throw new TokenConfigError(`${where} needs a name (letters, digits, - _ . @)`);
    if (!isRole(role)) throw new TokenConfigError(`${where} (${name}): role must be viewer, editor or admin`);
    if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH || /\s/.test(token))
      throw new TokenConfigError(
        `${where} (${name}): token must be at least ${MIN_TOKEN_LENGTH} characters, no spaces`,
      );
    if (seen.has(name)) throw new TokenConfigError(`${where}: the name ${name} is used twice`);
    seen.add(name);
    if (namespaces === undefined) return { name, role, token };
    if (
      !Array.isArray(namespaces) ||
      namespaces.length === 0 ||
      !namespaces.every((ns) => typeof ns === 'string' && namespaceError(ns) === undefined)
    )
      throw new TokenConfigError(
        `${where} (${name}): namespaces must be a non-empty list of namespace names`,
      );
    return { name, role, token, namespaces: namespaces as string[] };
  });
}

/** Tokens from `AUTH_TOKENS` ("name:role:token,…"). */
export function tokensFromEnv(raw: string): TokenEntry[] {
  const entries = raw
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item) => {
      const [name, role, ...token] = item.split(':');
      return { name, role, token: token.join(':') };
    });
  return validated(entries, 'AUTH_TOKENS');
}

/** Tokens from a YAML or JSON file: `tokens: [{ name, role, token, namespaces? }]`. */
export function tokensFromFile(path: string): TokenEntry[] {
  let document: unknown;
  try {
    document = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new TokenConfigError(`AUTH_TOKENS_FILE ${path}: ${(error as Error).message}`);
  }
  return validated((document as { tokens?: unknown } | null)?.tokens, `AUTH_TOKENS_FILE ${path}`);
}

/** One place tokens come from (AUTH_TOKENS_FILE, AUTH_TOKENS), named as its errors name it. */
export interface TokenSource {
  source: string;
  entries: readonly TokenEntry[];
}

/**
 * Every configured token, refusing two entries with the same token (within a source or across them): the store
 * would resolve it to one of them, so a viewer's secret repeated as an admin's would make its holder an admin. Also
 * refuses a name used in two sources, which would make the audit's actors ambiguous. The messages name the entries,
 * never the token.
 */
export function combineTokenSources(sources: readonly TokenSource[]): TokenEntry[] {
  const byToken = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const { source, entries } of sources)
    entries.forEach((entry, index) => {
      const where = `${source}: token #${index + 1} (${entry.name})`;
      const sameToken = byToken.get(entry.token);
      if (sameToken !== undefined)
        throw new TokenConfigError(
          `${where} has the same token as ${sameToken}: every token must be different`,
        );
      const sameName = byName.get(entry.name);
      if (sameName !== undefined)
        throw new TokenConfigError(`${where}: the name ${entry.name} is also used by ${sameName}`);
      byToken.set(entry.token, where);
      byName.set(entry.name, where);
    });
  return sources.flatMap(({ entries }) => entries);
}

/** The tokens AUTH_TOKENS_FILE and AUTH_TOKENS configure, combined (none when neither is set). */
export function configuredTokens(auth: {
  tokensFile: string | undefined;
  tokens: string | undefined;
}): TokenEntry[] {
  return combineTokenSources([
    ...(auth.tokensFile
      ? [{ source: `AUTH_TOKENS_FILE ${auth.tokensFile}`, entries: tokensFromFile(auth.tokensFile) }]
      : []),
    ...(auth.tokens ? [{ source: 'AUTH_TOKENS', entries: tokensFromEnv(auth.tokens) }] : []),
  ]);
}

/**
 * Checks the token settings without writing anything, so that main.ts can refuse a bad one before Nest starts:
 * one line and exit code 2, as for any configuration error, rather than a stack trace from dependency injection.
 */
export function checkTokenSettings(auth: {
  tokensFile: string | undefined;
  tokens: string | undefined;
  adminTokenPath: string;
}): void {
  if (configuredTokens(auth).length === 0) reusableAdminToken(auth.adminTokenPath);
}

/**
 * The admin token of a first start with no tokens configured: read from `path`, or generated there (mode 0600, in
 * a directory created 0700). `created` says whether it was generated now, so the app can print how to sign in
 * (never the token itself).
 */
export function bootstrapAdminToken(path: string): { entry: TokenEntry; created: boolean } {
  const reused = reusableAdminToken(path);
  if (reused) return { entry: { name: 'admin', role: 'admin', token: reused }, created: false };
  const token = randomBytes(32).toString('base64url');
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { entry: { name: 'admin', role: 'admin', token }, created: true };
}

/**
 * The token in an existing admin-token file, or undefined when there is none (or it is too short: a new one is
 * generated). A file that is not a plain file of ours alone is refused rather than fixed: whoever could read it
 * may hold the admin token already, and a chmod would not take it back.
 */
function reusableAdminToken(path: string): string | undefined {
  const existing = statOrUndefined(path);
  if (!existing) return undefined;
  if (!existing.isFile())
    throw new TokenConfigError(
      `${path} must be a plain file holding the admin token (it is not; a symlink?)`,
    );
  const mode = existing.mode & 0o777;
  if ((mode & 0o077) !== 0)
    throw new TokenConfigError(
      `${path} is open to group or others (mode ${mode.toString(8).padStart(4, '0')}): anyone who read it ` +
        `holds the admin token. Delete it to have a new token generated at the next start, or, if nobody ` +
        `else can have read it, run chmod 600 ${path}`,
    );
  const token = readFileSync(path, 'utf8').trim();
  return token.length >= MIN_TOKEN_LENGTH ? token : undefined;
}

function statOrUndefined(path: string) {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/**
 * Resolves bearer tokens to callers. Every known token is compared in constant time against the presented one
 * (both hashed first, so lengths never leak), and all of them are compared, so timing says nothing either.
 */
export class TokenStore {
  private readonly entries: { caller: Caller; digest: Buffer }[];

  constructor(entries: readonly TokenEntry[]) {
    this.entries = entries.map(({ name, role, token, namespaces }) => ({
      caller: namespaces ? { name, role, namespaces } : { name, role },
      digest: digest(token),
    }));
  }

  identify(token: string): Caller | undefined {
    const presented = digest(token);
    let found: Caller | undefined;
    for (const entry of this.entries) if (timingSafeEqual(entry.digest, presented)) found = entry.caller;
    return found;
  }

  get size(): number {
    return this.entries.length;
  }
}
