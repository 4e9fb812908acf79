import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, fetch as undiciFetch, type RequestInit as UndiciInit } from 'undici';
import { readFileSync } from 'node:fs';
import { startApp, type AppProcess } from './app-process.js';
import { migrate } from './database.js';
import { CLUSTER_DIR } from './paths.js';
import { waitFor } from './wait.js';

/** The tokens every control-plane test process knows, by role. */
export const TOKENS = {
  viewer: 'viewer-token-0123456789abcdef',
  editor: 'editor-token-0123456789abcdef',
  admin: 'admin-token-0123456789abcdef',
} as const;
export type TestRole = keyof typeof TOKENS;
export const TOKEN_NAMES: Record<TestRole, string> = {
  viewer: 'ada-viewer',
  editor: 'eve-editor',
  admin: 'ann-admin',
};
/** The three test tokens as AUTH_TOKENS says them (`name:role:token,…`). */
export const AUTH_TOKENS = (Object.keys(TOKENS) as TestRole[])
  .map((role) => `${TOKEN_NAMES[role]}:${role}:${TOKENS[role]}`)
  .join(',');

export const CA_FILE = join(CLUSTER_DIR, 'pki/ca.crt');

export interface ControlPlane extends AppProcess {
  /** The same port over TLS (the local cluster's serving certificate for the app). */
  httpsUrl: string;
  /** fetch against the app as a role (or without a token when `role` is undefined). */
  as: (role: TestRole | undefined) => (path: string, init?: RequestInit) => Promise<Response>;
}

export interface ControlPlaneOptions {
  /** Serve the built web UI (WEB_MODE=production: apps/web/.next) on the same origin. */
  web?: boolean;
}

/**
 * The built app with a fresh, migrated SQLite audit database, the three test tokens, no web UI unless
 * `options.web`, and the controller off unless `env` turns it on (other test files run their own controllers).
 */
export async function startControlPlane(
  env: Record<string, string> = {},
  options: ControlPlaneOptions = {},
): Promise<ControlPlane> {
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), 'ngx-cp-')), 'audit.db')}`;
  await migrate(databaseUrl);
  const api = await startApp({
    WEB_MODE: options.web ? 'production' : 'off',
    CONTROLLER: 'false',
    DATABASE_URL: databaseUrl,
    AUTH_TOKENS,
    ...env,
  });
  const as =
    (role: TestRole | undefined) =>
    (path: string, init: RequestInit = {}) =>
      fetch(`${api.url}${path}`, {
        ...init,
        headers: {
          ...(role ? { Authorization: `Bearer ${TOKENS[role]}` } : {}),
          ...(init.headers as Record<string, string>),
        },
      });
  return { ...api, httpsUrl: api.url.replace('http:', 'https:'), as };
}

/**
 * The control plane with its controller leading, watching only `namespaces` (WATCH_NAMESPACE, so that other test
 * files' Nginxes are not its business) with its Lease in the first. Resolves once the controller leads with synced
 * caches.
 */
export async function startLeadingControlPlane(
  namespaces: readonly string[],
  env: Record<string, string> = {},
  options: ControlPlaneOptions = {},
): Promise<ControlPlane> {
  const cp = await startControlPlane(
    { CONTROLLER: 'true', LEADER_ELECTION: 'true', WATCH_NAMESPACE: namespaces.join(','), ...env },
    options,
  );
  await waitFor(
    'the controller to lead with synced caches',
    async () => {
      const response = await fetch(`${cp.url}/readyz`);
      const body = (await response.json()) as { checks?: { controller?: { leader?: boolean } } };
      return response.ok && body.checks?.controller?.leader === true;
    },
    { timeoutMs: 60_000, intervalMs: 250 },
  );
  return cp;
}

/**
 * startLeadingControlPlane with the web UI, and one more editor token limited to the first namespace (from a token
 * file).
 */
export async function startWebControlPlane(
  namespaces: string | readonly string[],
  limited: { name: string; token: string },
): Promise<ControlPlane> {
  const watched = typeof namespaces === 'string' ? [namespaces] : namespaces;
  const tokens = join(mkdtempSync(join(tmpdir(), 'ngx-web-')), 'tokens.yaml');
  writeFileSync(
    tokens,
    `tokens:\n  - { name: ${limited.name}, role: editor, token: ${limited.token}, namespaces: [${watched[0]}] }\n`,
  );
  return startLeadingControlPlane(watched, { AUTH_TOKENS_FILE: tokens }, { web: true });
}

/** fetch over TLS trusting the local cluster's CA (the app's certificate is signed by it). */
export function tlsFetch(url: string, init: UndiciInit = {}) {
  const dispatcher = new Agent({ connect: { ca: readFileSync(CA_FILE) } });
  return undiciFetch(url, { ...init, dispatcher });
}

/** An Nginx manifest as a user writes one. */
export const nginxManifest = (name: string, replicas = 1, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name },
  spec: { replicas },
  ...extra,
});

/**
 * A pod made by hand for an Nginx (its label, and a controller owner reference to it), for tests whose controller
 * runs elsewhere: the control plane lists it as one of the Nginx's pods.
 */
export const ownedPodManifest = (pod: string, nginx: { name: string; uid: string }) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: pod,
    labels: { 'mycompany.com/nginx': nginx.name },
    ownerReferences: [{ apiVersion: 'mycompany.com/v1', kind: 'Nginx', ...nginx, controller: true }],
  },
  spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
});
