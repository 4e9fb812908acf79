import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAppToExit, startApp as startAppAnywhere, type AppProcess } from './support/app-process.js';
import { tlsFetch } from './support/control-plane.js';
import { migrate } from './support/database.js';
import { createNamedNamespace, deleteNamespace } from './support/operations.js';
import { runtimeClient } from './support/runtime.js';
import { errorLines } from './support/log-lines.js';
import { CONNECTION_LIMITS } from '../apps/api/src/transport/connection-limits.js';
import type { PublicReadiness, Readiness } from '../apps/api/src/health/readiness.js';
import { API_SERVER, KUBECONFIG_PATH } from './support/paths.js';
import { sleep, uniqueName, waitFor } from './support/wait.js';

const scratch = mkdtempSync(join(tmpdir(), 'ngx-api-'));
const databaseUrl = `file:${join(scratch, 'audit.db')}`;
const API_PORT = new URL(API_SERVER).port;

// The audit database every app of this file shares, migrated: the apps write their audit, and a test that finds no
// error logged must not meet "table does not exist" from an empty file.
beforeAll(() => migrate(databaseUrl), 120_000);

// A namespace of its own, the only one its apps' controllers watch (their Lease lives there too): other files run
// side by side.
const NS = uniqueName('api-app');
const client = runtimeClient();
beforeAll(() => createNamedNamespace(client, NS, {}));
afterAll(async () => {
  await deleteNamespace(client, NS);
  client.close();
});
const startApp = (env: Record<string, string>) => startAppAnywhere({ WATCH_NAMESPACE: NS, ...env });
const VIEWER_TOKEN = 'api-app-viewer-token-0123456789';

const portOf = (api: AppProcess) => Number(new URL(api.url).port);

/** A raw TCP connection to the app; errors (the app resetting it) are expected. */
function rawConnection(api: AppProcess): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(portOf(api), '127.0.0.1', () => resolve(socket));
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

/** Everything the app sends on `socket` until it closes it, and after how many ms. */
function untilClosed(socket: Socket): Promise<{ text: string; afterMs: number }> {
  const since = performance.now();
  return new Promise((resolve) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
    socket.once('close', () => resolve({ text, afterMs: performance.now() - since }));
  });
}

/** A plain HTTP request with a Host header of our choosing (fetch sets its own). */
function withHost(api: AppProcess, path: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: '127.0.0.1', port: portOf(api), path, headers: { Host: host } },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

describe('the app on one origin (API + web UI)', () => {
  let api: AppProcess;

  beforeAll(async () => {
    api = await startApp({
      DATABASE_URL: databaseUrl,
      WEB_MODE: 'production',
      AUTH_TOKENS: `ops:viewer:${VIEWER_TOKEN}`,
    });
  });
  afterAll(() => api?.stop());

  it('answers /healthz', async () => {
    const response = await fetch(`${api.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('is ready when the API server and the database answer, and tells only a caller with a token where they are', async () => {
    // It listens before its caches have synced, and is not ready until they have.
    // Polled well under the per-address budget of anonymous requests, which the later tests here spend too.
    const response = await waitFor(
      'the app to be ready',
      async () => {
        const answer = await fetch(`${api.url}/readyz`);
        return answer.status === 200 && answer;
      },
      { timeoutMs: 30_000, intervalMs: 250 },
    );
    const text = await response.text();
    const body = JSON.parse(text) as PublicReadiness;
    expect(body.ready).toBe(true);
    expect(body.checks.kubernetes).toEqual({ ok: true, detail: 'reachable' });
    expect(body.checks.database).toEqual({ ok: true, detail: 'reachable' });
    expect(Object.keys(body.checks.controller ?? {}).sort()).toEqual(['detail', 'leader', 'ok']);
    expect(text).not.toMatch(new RegExp(`https?://|${API_PORT}|Kubernetes v|sqlite`));

    const detailed = await fetch(`${api.url}/readyz`, {
      headers: { Authorization: `Bearer ${VIEWER_TOKEN}` },
    });
    const full = (await detailed.json()) as Readiness;
    expect(full.checks.kubernetes).toMatchObject({ ok: true, server: API_SERVER });
    expect(full.checks.kubernetes.detail).toMatch(/^Kubernetes v1\.\d+\.\d+$/);
    expect(full.checks.database).toMatchObject({ ok: true, provider: 'sqlite' });
    const wrongToken = await fetch(`${api.url}/readyz`, {
      headers: { Authorization: 'Bearer not-a-token-0123456789' },
    });
    expect(await wrongToken.text()).not.toContain(API_PORT);
  });

  it('survives TCP resets before the first byte and mid-handshake: no uncaughtException, still answering', async () => {
    const printedBefore = api.output().length;
    for (let i = 0; i < 5; i++) (await rawConnection(api)).resetAndDestroy();
    const midHandshake = await rawConnection(api);
    midHandshake.write(Buffer.from([0x16, 0x03, 0x01, 0x00]));
    await sleep(100); // the partial record reaches the app before the reset
    midHandshake.resetAndDestroy();
    // The marker, not a sleep: requests on connections opened after the resets are answered, so the app has
    // handled the resets that came before them (and would have printed an uncaughtException by then).
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${api.url}/`)).status).toBe(200);
    // An uncaught exception would have ended the process (Node's default: the app installs no handler).
    expect(api.exited()).toBeUndefined();
    expect(errorLines(api.output().slice(printedBefore))).toEqual([]);
  });

  it('refuses a Host header that is not a loopback name (DNS rebinding) with a 421 Status, UI and API alike', async () => {
    for (const path of ['/', '/apis', '/readyz', '/socket.io/?EIO=4&transport=polling']) {
      const refused = await withHost(api, path, 'rebind.attacker.example');
      expect(refused.status, path).toBe(421);
      expect(JSON.parse(refused.body)).toMatchObject({ kind: 'Status', code: 421 });
    }
    expect((await withHost(api, '/healthz', `localhost:${portOf(api)}`)).status).toBe(200);
    expect((await withHost(api, '/healthz', `[::1]:${portOf(api)}`)).status).toBe(200);
  });

  it('serves the web UI from the same port', async () => {
    const response = await fetch(`${api.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toContain('Nginx control plane');
    // Rendered once at start-up, so the first visitor does not pay for Next.js's first render.
    await waitFor(
      'the web UI to be warmed',
      () => /web UI warmed in \d+ ms: \/ 200, \/sign-in 200, \/audit 200/.test(api.output()),
      { timeoutMs: 30_000 },
    );
  });

  it('keeps API paths for the API and the rest for the UI', async () => {
    const apiMiss = await fetch(`${api.url}/apis/does-not-exist`);
    expect(apiMiss.status).toBe(404);
    expect(apiMiss.headers.get('content-type')).toMatch(/application\/json/);

    const uiMiss = await fetch(`${api.url}/no-such-page`);
    expect(uiMiss.status).toBe(404);
    expect(uiMiss.headers.get('content-type')).toMatch(/text\/html/);
  });
});

describe('when the Kubernetes API server cannot be reached', () => {
  let api: AppProcess;

  beforeAll(async () => {
    // Same credentials, a port nothing listens on.
    const unreachable = join(scratch, 'unreachable-kubeconfig');
    writeFileSync(
      unreachable,
      readFileSync(KUBECONFIG_PATH, 'utf8').replace(/127\.0\.0\.1:\d+/, '127.0.0.1:1'),
    );
    api = await startApp({ DATABASE_URL: databaseUrl, WEB_MODE: 'off', KUBECONFIG: unreachable });
  });
  afterAll(() => api?.stop());

  it('stays alive but reports not ready, saying why', async () => {
    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    const response = await fetch(`${api.url}/readyz`);
    expect(response.status).toBe(503);
    const body = (await response.json()) as Readiness;
    expect(body.ready).toBe(false);
    expect(body.checks.kubernetes.ok).toBe(false);
    expect(body.checks.kubernetes.detail).not.toBe('');
    expect(body.checks.database.ok).toBe(true);
  });
});

describe('slow clients (slowloris)', () => {
  let api: AppProcess;

  beforeAll(async () => {
    api = await startApp({ DATABASE_URL: databaseUrl, WEB_MODE: 'off' });
  });
  afterAll(() => api?.stop());

  it(
    'closes a connection that sends nothing, and answers 408 to headers that never complete',
    async () => {
      // Which closed first, and how many header lines the trickling client had sent when refused: observed order
      // and progress, not wall-clock upper bounds.
      const closed: string[] = [];
      const silent = untilClosed(await rawConnection(api)).then((r) => (closed.push('silent'), r));
      const trickling = await rawConnection(api);
      const partial = untilClosed(trickling).then((r) => (closed.push('trickling'), r));
      trickling.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      let trickled = 0;
      const keepTrickling = setInterval(() => {
        trickling.write('X-Slow: 1\r\n');
        trickled++;
      }, 2000);
      try {
        const [nothing, headers] = await Promise.all([silent, partial]);
        expect(nothing.text).toBe('');
        expect(nothing.afterMs).toBeGreaterThanOrEqual(CONNECTION_LIMITS.firstByteMs - 100);
        expect(headers.text).toMatch(/^HTTP\/1\.1 408 Request Timeout/);
        expect(headers.afterMs).toBeGreaterThanOrEqual(CONNECTION_LIMITS.headersMs - 100);
        // The silent one went at its first-byte bound, before the headers bound refused the other (10 s vs 20 s).
        expect(closed).toEqual(['silent', 'trickling']);
        // The trickling client was still sending when refused: a bound on the whole headers, not on idleness.
        expect(trickled).toBeGreaterThanOrEqual(Math.floor(CONNECTION_LIMITS.firstByteMs / 2000));
      } finally {
        clearInterval(keepTrickling);
      }
      expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    },
    CONNECTION_LIMITS.headersMs + 20_000,
  );
});

describe('PLAIN_HTTP=redirect (as deploy/ sets it)', () => {
  let api: AppProcess;

  beforeAll(async () => {
    // TLS on with the local cluster's certificate, as for npm start; only the plain-HTTP policy differs.
    api = await startApp({ DATABASE_URL: databaseUrl, WEB_MODE: 'off', PLAIN_HTTP: 'redirect' });
  });
  afterAll(() => api?.stop());

  it('redirects plain reads to https with 308, refuses plain writes, answers /healthz, and serves TLS', async () => {
    const https = api.url.replace('http:', 'https:');
    const read = await fetch(`${api.url}/apis?x=1`, { redirect: 'manual' });
    expect(read.status).toBe(308);
    expect(read.headers.get('location')).toBe(`${https}/apis?x=1`);

    const write = await fetch(`${api.url}/apis/mycompany.com/v1/namespaces/default/nginxes`, {
      method: 'POST',
      body: '{}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(write.status).toBe(400);
    expect(await write.json()).toMatchObject({
      kind: 'Status',
      code: 400,
      message: expect.stringContaining('only over TLS') as string,
    });

    expect((await fetch(`${api.url}/healthz`)).status).toBe(200);
    await waitFor('ready over TLS', async () => (await tlsFetch(`${https}/readyz`)).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 250,
    });
  });
});

describe('bad configuration stops the app at start with one clear line', () => {
  writeFileSync(
    join(scratch, 'tokens.yaml'),
    'tokens:\n  - { name: root, role: admin, token: secret-token-0123456789 }\n',
  );
  it.each([
    [{ PORT: 'eighty' }, 'configuration error: PORT must be an integer from 0 to 65535 (got "eighty")'],
    [{ DATABASE_URL: 'mysql://root:secret@db/x' }, 'configuration error: DATABASE_URL must start with file:'],
    [
      { KUBECONFIG: '/nonexistent/kubeconfig' },
      'configuration error: KUBECONFIG names a file that does not exist',
    ],
    [{ WEB_MODE: 'turbo' }, 'configuration error: WEB_MODE must be production, development or off'],
    [
      { LEASE_DURATION_SECONDS: '5' },
      'configuration error: LEASE_RENEW_DEADLINE_SECONDS must be shorter than LEASE_DURATION_SECONDS',
    ],
    // In a pod (KUBERNETES_SERVICE_HOST), a SQLite file that dies with it: here, on the machine's own filesystem.
    [
      { KUBERNETES_SERVICE_HOST: '10.96.0.1', DATABASE_URL: 'file:/tmp/ngx-ephemeral/audit.db' },
      "configuration error: DATABASE_URL is a SQLite file on the container's own filesystem",
    ],
    // A viewer's secret repeated as an admin's would make its holder an admin: refused, without printing it.
    [
      {
        AUTH_TOKENS: 'ada:viewer:secret-token-0123456789',
        AUTH_TOKENS_FILE: join(scratch, 'tokens.yaml'),
      },
      `configuration error: AUTH_TOKENS: token #1 (ada) has the same token as AUTH_TOKENS_FILE ${join(scratch, 'tokens.yaml')}: token #1 (root)`,
    ],
    [{ PLAIN_HTTP: 'deny' }, 'configuration error: PLAIN_HTTP must be redirect, allow-loopback, allow'],
    [
      { ALLOWED_HOSTS: 'https://cp.example.com' },
      'configuration error: ALLOWED_HOSTS: "https://cp.example.com"',
    ],
  ])('%j', async (env, message) => {
    const { code, output } = await runAppToExit(env);
    expect(code).toBe(2);
    expect(output).toContain(message);
    expect(output).not.toContain('secret');
  });

  it('a web UI without a production build', async () => {
    const { code, output } = await runAppToExit({ DATABASE_URL: databaseUrl, WEB_DIR: scratch });
    expect(code).toBe(1);
    expect(output).toContain('the web UI has no production build');
  });

  it('a port already in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, output } = await runAppToExit({
        DATABASE_URL: databaseUrl,
        WEB_MODE: 'off',
        PORT: String(port),
      });
      expect(code).toBe(1);
      expect(output).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
  });
});
