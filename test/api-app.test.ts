import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runApiToExit, startApi, type ApiProcess } from './support/api-process.js';
import type { Readiness } from '../apps/api/src/health/health.service.js';
import { KUBECONFIG_PATH } from './support/paths.js';

const scratch = mkdtempSync(join(tmpdir(), 'ngx-api-'));
const databaseUrl = `file:${join(scratch, 'audit.db')}`;

describe('the app on one origin (API + web UI)', () => {
  let api: ApiProcess;

  beforeAll(async () => {
    api = await startApi({ DATABASE_URL: databaseUrl, WEB_MODE: 'production' });
  });
  afterAll(() => api?.stop());

  it('answers /healthz', async () => {
    const response = await fetch(`${api.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('is ready when the API server and the database answer', async () => {
    const response = await fetch(`${api.url}/readyz`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Readiness;
    expect(body.ready).toBe(true);
    expect(body.checks.kubernetes).toMatchObject({ ok: true, server: 'https://127.0.0.1:6443' });
    expect(body.checks.kubernetes.detail).toMatch(/^Kubernetes v1\.\d+\.\d+$/);
    expect(body.checks.database).toMatchObject({ ok: true, provider: 'sqlite' });
  });

  it('serves the web UI from the same port', async () => {
    const response = await fetch(`${api.url}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/html/);
    expect(await response.text()).toContain('Nginx control plane');
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
  let api: ApiProcess;

  beforeAll(async () => {
    // Same credentials, a port nothing listens on.
    const unreachable = join(scratch, 'unreachable-kubeconfig');
    writeFileSync(
      unreachable,
      readFileSync(KUBECONFIG_PATH, 'utf8').replace(/127\.0\.0\.1:\d+/, '127.0.0.1:1'),
    );
    api = await startApi({ DATABASE_URL: databaseUrl, WEB_MODE: 'off', KUBECONFIG: unreachable });
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

describe('bad configuration stops the app at start with one clear line', () => {
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
  ])('%j', async (env, message) => {
    const { code, output } = await runApiToExit(env);
    expect(code).toBe(2);
    expect(output).toContain(message);
    expect(output).not.toContain('secret');
  });

  it('a web UI without a production build', async () => {
    const { code, output } = await runApiToExit({ DATABASE_URL: databaseUrl, WEB_DIR: scratch });
    expect(code).toBe(1);
    expect(output).toContain('the web UI has no production build');
  });

  it('a port already in use', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const { code, output } = await runApiToExit({
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
