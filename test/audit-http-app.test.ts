// The audit trail's HTTP answers through the real app (its guard, tokens, Status filter and audit database), where
// test/audit-query.test.ts reaches AuditController in a testing module without the guard: 401 without a token
// or with a bad one (before any row is read or exported), 403 for a token whose namespaces do not cover what it
// asks for, lists, paging, exports and 400s for bad parameters as a signed-in caller gets them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditDatabase } from '../apps/api/src/audit/audit-database.js';
import { RECONCILE_COLUMNS } from '../apps/api/src/audit/audit-items.js';
import { PrismaAuditSink } from '../apps/api/src/audit/prisma-audit-sink.js';
import type { ReconcileRecordRow } from '../apps/api/src/audit/reconcile-record.js';
import { databaseTarget } from '../apps/api/src/config/database-target.js';
import {
  nginxManifest,
  startControlPlane,
  TOKEN_NAMES,
  TOKENS,
  type ControlPlane,
} from './support/control-plane.js';
import { migrate, sqliteDatabase } from './support/database.js';
import { kubectl } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const OURS = uniqueName('audit-ours');
const THEIRS = uniqueName('audit-theirs');
const LIMITED = 'audit-limited-token-0123456789abcdef';
const AUDIT = '/controlplane/v1/audit';
let cp: ControlPlane;

const BASE = Date.parse('2026-11-20T10:00:00.000Z');
const reconcile = (namespace: string, name: string, second: number): ReconcileRecordRow => {
  const startedAt = new Date(BASE + second * 1000);
  return {
    startedAt,
    finishedAt: new Date(startedAt.getTime() + 7),
    durationMs: 7,
    namespace,
    name,
    uid: `uid-${name}`,
    generation: 1,
    resourceVersion: '100',
    trigger: 'nginx-updated',
    desiredReplicas: 1,
    activeReplicas: 1,
    readyReplicas: 1,
    actions: JSON.stringify([{ kind: 'create', pod: `${name}-abcde` }]),
    result: 'success',
    error: null,
    attempt: 1,
    instanceId: 'seeded',
  };
};

beforeAll(async () => {
  await kubectl('create', 'namespace', OURS);
  // The app's own audit database, with reconciles seeded before it starts (its controller is off here).
  const database = await sqliteDatabase();
  await migrate(database.url);
  const audit = await AuditDatabase.connect(databaseTarget(database.url));
  await new PrismaAuditSink(audit).write({
    rows: [
      reconcile(OURS, 'r1', 1),
      reconcile(OURS, 'r2', 2),
      reconcile(OURS, 'r3', 3),
      reconcile(THEIRS, 'secret', 4),
    ],
    changes: [],
    noops: [],
  });
  await audit.close();
  const tokens = join(mkdtempSync(join(tmpdir(), 'ngx-audit-http-')), 'tokens.yaml');
  writeFileSync(
    tokens,
    `tokens:\n  - { name: lou-limited, role: viewer, token: ${LIMITED}, namespaces: [${OURS}] }\n`,
  );
  cp = await startControlPlane({ DATABASE_URL: database.url, AUTH_TOKENS_FILE: tokens });
});
afterAll(async () => {
  await cp?.stop();
  await kubectl('delete', 'namespace', OURS, '--wait=false').catch(() => {});
});

function get(path: string, token: string | undefined, headers: Record<string, string> = {}) {
  return fetch(`${cp.url}${AUDIT}/${path}`, {
    headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers },
  });
}

async function expectStatus(response: Response, code: number, what: string) {
  const text = await response.text();
  expect(response.status, `${what}: ${text.slice(0, 300)}`).toBe(code);
  expect(JSON.parse(text), what).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code });
  return text;
}

const EVERY_READ = [
  `reconciles?namespace=${OURS}`,
  `reconciles?namespace=${OURS}&format=csv`,
  `changes?namespace=${OURS}`,
  `changes?namespace=${OURS}&format=ndjson`,
  `noops?namespace=${OURS}`,
  'refusals',
];

describe('the audit over HTTP through the app', () => {
  it('answers 401 without a token or with a bad one, on every list and export, and leaks no row', async () => {
    for (const path of EVERY_READ)
      for (const token of [undefined, 'not-a-token-0123456789abcdef']) {
        const text = await expectStatus(await get(path, token), 401, `${path} with ${token ?? 'no token'}`);
        expect(text).not.toContain('r1');
      }
    // Positive control: the same reads with a viewer's token are answered.
    for (const path of EVERY_READ) expect((await get(path, TOKENS.viewer)).status, path).toBe(200);
  });

  it('answers 403 to a token limited to one namespace for another, for all of them and for refusals', async () => {
    for (const path of [
      `reconciles?namespace=${THEIRS}`,
      `reconciles?namespace=${THEIRS}&format=csv`,
      `changes?namespace=${THEIRS}`,
      'reconciles',
      'changes?format=ndjson',
      'noops',
      'refusals',
    ]) {
      const text = await expectStatus(await get(path, LIMITED), 403, path);
      expect(text).not.toContain('secret');
    }
    // Positive control: its own namespace is answered, with its rows and none of the other's.
    const own = await get(`reconciles?namespace=${OURS}`, LIMITED);
    expect(own.status).toBe(200);
    const names = ((await own.json()) as { items: { name: string }[] }).items.map((item) => item.name);
    expect(names).toEqual(['r3', 'r2', 'r1']);
  });

  it('lists reconciles newest first and pages with continue', async () => {
    const first = await get(`reconciles?namespace=${OURS}&limit=2`, TOKENS.viewer);
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const page = (await first.json()) as {
      kind: string;
      metadata: { continue?: string };
      items: { name: string }[];
    };
    expect(page.kind).toBe('ReconcileRecordList');
    expect(page.items.map((item) => item.name)).toEqual(['r3', 'r2']);
    const next = await get(
      `reconciles?namespace=${OURS}&limit=2&continue=${encodeURIComponent(page.metadata.continue!)}`,
      TOKENS.viewer,
    );
    const rest = (await next.json()) as { metadata: object; items: { name: string }[] };
    expect(rest.items.map((item) => item.name)).toEqual(['r1']);
    expect(rest.metadata).toEqual({});

    // A tampered continue token: 400 naming it.
    const tampered = await get(
      `reconciles?namespace=${OURS}&limit=2&continue=${page.metadata.continue}A`,
      TOKENS.viewer,
    );
    expect(JSON.parse(await expectStatus(tampered, 400, 'tampered continue'))).toMatchObject({
      details: { causes: [{ field: 'continue' }] },
    });
  });

  it('exports CSV and NDJSON as attachments to a signed-in caller', async () => {
    const csv = await get(`reconciles?namespace=${OURS}`, TOKENS.viewer, { Accept: 'text/csv' });
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
    expect(csv.headers.get('content-disposition')).toMatch(
      /^attachment; filename="reconciles-\d{8}T\d{6}Z\.csv"$/,
    );
    const lines = (await csv.text()).split('\r\n');
    expect(lines[0]).toBe(RECONCILE_COLUMNS.join(','));
    expect(lines).toHaveLength(1 + 3 + 1);

    // A change made through the app is recorded with its actor, and exported as NDJSON.
    const created = await cp.as('editor')(`/apis/mycompany.com/v1/namespaces/${OURS}/nginxes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(nginxManifest('audited', 1)),
    });
    expect(created.status).toBe(201);
    let exported: { verb: string; actor: string; name: string; code: number }[] = [];
    await waitFor('the change to reach the audit', async () => {
      const ndjson = await get(`changes?namespace=${OURS}`, LIMITED, { Accept: 'application/x-ndjson' });
      expect(ndjson.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      const text = (await ndjson.text()).trimEnd();
      exported = text ? text.split('\n').map((line) => JSON.parse(line) as (typeof exported)[number]) : [];
      return exported.length > 0;
    });
    expect(exported).toEqual([
      expect.objectContaining({ verb: 'create', actor: TOKEN_NAMES.editor, name: 'audited', code: 201 }),
    ]);
  });

  it.each([
    ['reconciles?result=failed', 'result'],
    ['reconciles?format=xml', 'format'],
    ['reconciles?limit=0', 'limit'],
    ['reconciles?limit=501', 'limit'],
    ['reconciles?since=yesterday', 'since'],
    ['reconciles?name=a&name=b', 'name'],
    ['reconciles?namespace=Bad_NS', 'namespace'],
    ['changes?verb=get', 'verb'],
    ['changes?format=csv&limit=0', 'limit'],
    ['noops?namespace=a&namespace=b', 'namespace'],
  ])('answers a viewer GET %s with a 400 Status naming %s', async (path, field) => {
    const text = await expectStatus(await get(path, TOKENS.viewer), 400, path);
    expect(JSON.parse(text)).toMatchObject({
      reason: 'BadRequest',
      details: { causes: [{ reason: 'FieldValueInvalid', field }] },
    });
  });

  it('counts the refused reads above in the refusals, readable by a viewer of every namespace', async () => {
    await waitFor('the refusals to be counted', async () => {
      const response = await get('refusals', TOKENS.viewer);
      const items = ((await response.json()) as { items: { code: number; subject?: string }[] }).items;
      return (
        items.some((item) => item.code === 401) &&
        items.some((item) => item.code === 403 && item.subject === 'lou-limited')
      );
    });
  });
});
