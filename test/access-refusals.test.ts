// Issue 32's "the server stays up and the audit records each refusal", against the built app on each audit
// database: a burst of bad tokens, requests without one, a viewer's write, a token limited to one namespace
// reaching for the cluster's refusals, and a live handshake with a bad token — each answered 401 or 403, counted
// per minute and key in /controlplane/v1/audit/refusals (never the token itself), and the server still answers.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_NAMES, startControlPlane, type ControlPlane } from './support/control-plane.js';
import { migrate, POSTGRES_URL, postgresDatabase, type TestDatabase } from './support/database.js';
import { waitFor } from './support/wait.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API answers, read loosely
type Json = Record<string, any>;

const BAD_TOKENS = 25;
const NO_TOKEN = 3;
const LIMITED = { name: 'lee-limited', token: 'limited-viewer-token-0123456789' };
const JWT_LIKE = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJtYWxsb3J5In0.';
const PATCH = '/apis/mycompany.com/v1/namespaces/default/nginxes/refusal-test';

const databases = [
  { name: 'sqlite', available: true },
  { name: 'postgresql', available: Boolean(POSTGRES_URL) },
];

describe.each(databases)('refused requests in the audit ($name)', ({ name, available }) => {
  let cp: ControlPlane;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    if (!available) return;
    const tokens = join(mkdtempSync(join(tmpdir(), 'ngx-refusals-')), 'tokens.yaml');
    writeFileSync(
      tokens,
      `tokens:\n  - { name: ${LIMITED.name}, role: viewer, token: ${LIMITED.token}, namespaces: [default] }\n`,
    );
    const env: Record<string, string> = { AUTH_TOKENS_FILE: tokens, ANON_RATE_LIMIT_RPS: '1000' };
    if (name === 'postgresql') {
      database = await postgresDatabase();
      await migrate(database.url);
      env.DATABASE_URL = database.url;
    }
    cp = await startControlPlane(env);
  });
  afterAll(async () => {
    await cp?.stop();
    await database?.drop();
  });

  const limited = (path: string) =>
    fetch(`${cp.url}${path}`, { headers: { Authorization: `Bearer ${LIMITED.token}` } });

  it.skipIf(!available)(
    'answers each refusal, counts them per key, stores no token, and stays up',
    async () => {
      const bad = await Promise.all(
        Array.from({ length: BAD_TOKENS }, (_, i) =>
          fetch(`${cp.url}/apis/mycompany.com/v1/nginxes`, {
            headers: { Authorization: `Bearer ${i % 2 === 0 ? `not-a-token-${i}` : JWT_LIKE}` },
          }),
        ),
      );
      expect(bad.map((answer) => answer.status)).toEqual(Array(BAD_TOKENS).fill(401));
      for (let i = 0; i < NO_TOKEN; i++)
        expect((await fetch(`${cp.url}/apis/mycompany.com/v1/nginxes`)).status).toBe(401);

      const write = await cp.as('viewer')(PATCH, {
        method: 'PATCH',
        headers: { 'Content-Type': 'application/merge-patch+json' },
        body: JSON.stringify({ spec: { replicas: 2 } }),
      });
      expect(write.status).toBe(403);

      // The cluster's refusals need the whole cluster's audit: a token limited to a namespace may not read them,
      // nor vouch for itself with a namespace parameter.
      expect((await limited('/controlplane/v1/audit/refusals')).status).toBe(403);
      expect((await limited('/controlplane/v1/audit/refusals?namespace=default')).status).toBe(400);

      const handshake = await new Promise<string>((resolve) => {
        const socket = io(cp.url, {
          path: '/socket.io',
          auth: { token: 'not-a-live-token' },
          transports: ['websocket'],
          reconnection: false,
        });
        socket.on('connect_error', (error) => {
          socket.close();
          resolve(error.message);
        });
        socket.on('connect', () => {
          socket.close();
          resolve('connected');
        });
      });
      expect(handshake).toBe('unauthorized');

      const refusals = async (query = ''): Promise<Json[]> => {
        const answer = await cp.as('admin')(`/controlplane/v1/audit/refusals${query}`);
        expect(answer.status).toBe(200);
        return ((await answer.json()) as Json).items as Json[];
      };
      const sum = (items: Json[], match: (item: Json) => boolean) =>
        items.filter(match).reduce((total, item) => total + (item.count as number), 0);
      let items: Json[] = [];
      await waitFor('the refusals counted in the audit', async () => {
        items = await refusals();
        return (
          sum(items, (item) => item.door === 'rest' && item.reason === 'bad-token') === BAD_TOKENS &&
          sum(items, (item) => item.door === 'live') === 1 &&
          sum(items, (item) => item.code === 403 && item.reason === 'namespace') === 1
        );
      });
      expect(sum(items, (item) => item.door === 'rest' && item.reason === 'no-credential')).toBe(NO_TOKEN);
      // One row per minute and key: the whole REST burst came from one address, so at most two rows (a minute's
      // edge). The live door's refusal is a key of its own.
      expect(
        items.filter((item) => item.door === 'rest' && item.reason === 'bad-token').length,
      ).toBeLessThanOrEqual(2);
      const role = items.find((item) => item.code === 403 && item.reason === 'role');
      expect(role).toMatchObject({ door: 'rest', subject: TOKEN_NAMES.viewer, count: 1 });
      expect(role!.message).toContain('may not patch');
      expect(items.find((item) => item.door === 'live')).toMatchObject({ code: 401, reason: 'bad-token' });
      expect(items.find((item) => item.reason === 'namespace')).toMatchObject({ subject: LIMITED.name });
      for (const item of items) {
        expect(item.address).not.toBe('');
        expect(Date.parse(item.firstAt)).toBeLessThanOrEqual(Date.parse(item.lastAt));
      }
      const stored = JSON.stringify(items);
      for (const secret of [JWT_LIKE, 'not-a-token-0', 'not-a-live-token', LIMITED.token])
        expect(stored).not.toContain(secret);

      // Filters and paging.
      const forbidden = await refusals('?code=403');
      expect(forbidden.length).toBeGreaterThan(0);
      expect(forbidden.every((item) => item.code === 403)).toBe(true);
      expect((await refusals('?door=live')).every((item) => item.door === 'live')).toBe(true);
      expect(await refusals(`?since=${new Date(Date.now() + 3_600_000).toISOString()}`)).toEqual([]);
      const first = (await (await cp.as('admin')('/controlplane/v1/audit/refusals?limit=1')).json()) as Json;
      expect(first.kind).toBe('RefusalCountList');
      expect(first.items).toHaveLength(1);
      const next = (await (
        await cp.as('admin')(`/controlplane/v1/audit/refusals?limit=1&continue=${first.metadata.continue}`)
      ).json()) as Json;
      expect(next.items[0].id).not.toBe(first.items[0].id);

      const metrics = await (await fetch(`${cp.url}/metrics`)).text();
      expect(metrics).toMatch(/nginx_access_refusals_total\{door="rest",code="401"\} (\d+)/);
      expect(
        Number(/nginx_access_refusals_total\{door="rest",code="401"\} (\d+)/.exec(metrics)![1]),
      ).toBeGreaterThanOrEqual(BAD_TOKENS + NO_TOKEN);
      expect((await fetch(`${cp.url}/healthz`)).status).toBe(200);
      expect((await cp.as('viewer')('/apis/mycompany.com/v1/nginxes')).status).toBe(200);
    },
  );
});
