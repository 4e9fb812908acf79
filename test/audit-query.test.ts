import 'reflect-metadata';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  POSTGRES_URL,
  migrate,
  postgresDatabase,
  sqliteDatabase,
  type TestDatabase,
} from './support/database.js';
import { AuditController } from '../apps/api/src/audit/audit.controller.js';
import { appConfig, loadAppConfig } from '../apps/api/src/config/app-config.js';
import { exportSerializer } from '../apps/api/src/audit/audit-export.js';
import { JSON_COLUMNS, RECONCILE_COLUMNS } from '../apps/api/src/audit/audit-items.js';
import { parseChangeParams, parseReconcileParams } from '../apps/api/src/audit/audit-params.js';
import { AuditReader } from '../apps/api/src/audit/audit-reader.js';
import type { ChangeRecordRow } from '../apps/api/src/audit/change-record.js';
import { databaseTarget } from '../apps/api/src/config/database-target.js';
import { PrismaAuditSink } from '../apps/api/src/audit/prisma-audit-sink.js';
import { AuditDatabase } from '../apps/api/src/audit/audit-database.js';
import type { AuditPrismaClient } from '../apps/api/src/audit/prisma-client.js';
import { AUDIT_DATABASE } from '../apps/api/src/audit/prisma.service.js';
import type { ReconcileRecordRow } from '../apps/api/src/audit/reconcile-record.js';
import { StatusExceptionFilter } from '../apps/api/src/http/status-exception.filter.js';

/**
 * The audit trail's read side on each provider: rows written through PrismaAuditSink (as the app writes them),
 * read back through the query modules (filters, newest-first order, paging stable across inserts, exports),
 * then over HTTP through AuditController with the Status filter, in-process (no cluster needed).
 */
/** The app's configuration as a test process's environment gives it (the controller reads its limits). */
const testConfig = { provide: appConfig.KEY, useValue: loadAppConfig({}, process.cwd()) };

const providers = [
  { name: 'sqlite', available: true, create: sqliteDatabase },
  { name: 'postgresql', available: Boolean(POSTGRES_URL), create: postgresDatabase },
];

const BASE = Date.parse('2026-11-20T10:00:00.000Z');
const t = (seconds: number) => new Date(BASE + seconds * 1000);

const reconcile = (
  namespace: string,
  name: string,
  startedAt: Date,
  overrides: Partial<ReconcileRecordRow> = {},
): ReconcileRecordRow => ({
  startedAt,
  finishedAt: new Date(startedAt.getTime() + 7),
  durationMs: 7,
  namespace,
  name,
  uid: 'uid-1',
  generation: 2,
  resourceVersion: '100',
  trigger: 'nginx-updated',
  desiredReplicas: 3,
  activeReplicas: 2,
  readyReplicas: 2,
  actions: JSON.stringify([{ kind: 'create', pod: `${name}-abcde` }]),
  result: 'success',
  error: null,
  attempt: 1,
  instanceId: 'test',
  ...overrides,
});

const change = (
  namespace: string,
  name: string,
  at: Date,
  overrides: Partial<ChangeRecordRow> = {},
): ChangeRecordRow => ({
  at,
  actor: 'alice',
  role: 'editor',
  verb: 'patch',
  namespace,
  name,
  subresource: null,
  patchType: 'application/merge-patch+json',
  specBefore: JSON.stringify({ replicas: 1, image: 'nginx:1.27' }),
  specAfter: JSON.stringify({ replicas: 2, image: 'nginx:1.27' }),
  code: 200,
  reason: null,
  message: null,
  uid: 'uid-1',
  resourceVersion: '101',
  userAgent: 'curl/8.5.0',
  ...overrides,
});

for (const provider of providers) {
  describe.skipIf(!provider.available)(`audit queries on ${provider.name}`, () => {
    let database: TestDatabase;
    let audit: AuditDatabase;
    let prisma: AuditPrismaClient;
    let sink: PrismaAuditSink;
    let reader: AuditReader;
    const write = (rows: ReconcileRecordRow[], changes: ChangeRecordRow[] = []) =>
      sink.write({ rows, changes, noops: [] });

    /** Every page of reconciles for `query`, following `continue` until the last page. */
    async function allPages(query: Record<string, string>) {
      const names: string[][] = [];
      let token: string | undefined;
      do {
        const params = parseReconcileParams({ ...query, ...(token ? { continue: token } : {}) });
        const page = await reader.reconciles(params.filters, params.limit, params.after);
        names.push(page.items.map((item) => item.name));
        token = page.continue;
      } while (token);
      return names;
    }

    beforeAll(async () => {
      database = await provider.create();
      expect(await migrate(database.url)).toMatch(/All migrations have been successfully applied/);
      audit = await AuditDatabase.connect(databaseTarget(database.url));
      prisma = await audit.client();
      sink = new PrismaAuditSink(audit);
      reader = new AuditReader(() => audit.client());
    });
    afterAll(async () => {
      await audit?.close();
      await database?.drop();
    });

    it('lists reconciles newest first, ties in start time broken by id, with actions parsed', async () => {
      // r3 and r4 start in the same millisecond: the one written later (higher id) comes first.
      await write([
        reconcile('order', 'r1', t(1)),
        reconcile('order', 'r3', t(3)),
        reconcile('order', 'r4', t(3)),
        reconcile('order', 'r2', t(2)),
      ]);
      const { filters, limit } = parseReconcileParams({ namespace: 'order' });
      const page = await reader.reconciles(filters, limit);
      expect(page.items.map((item) => item.name)).toEqual(['r4', 'r3', 'r2', 'r1']);
      expect(page.continue).toBeUndefined();
      expect(page.items[0]).toMatchObject({
        namespace: 'order',
        startedAt: t(3).toISOString(),
        finishedAt: new Date(t(3).getTime() + 7).toISOString(),
        actions: [{ kind: 'create', pod: 'r4-abcde' }],
        result: 'success',
      });
      expect(typeof page.items[0]!.id).toBe('number');
    });

    it('filters reconciles by namespace, name, result and a [since, until) window', async () => {
      await write([
        reconcile('filters', 'web', t(10)),
        reconcile('filters', 'web', t(20), { result: 'error', error: 'pods is forbidden', attempt: 2 }),
        reconcile('filters', 'web', t(30), { result: 'requeued' }),
        reconcile('filters', 'api', t(40), { result: 'error', error: 'conflict' }),
        reconcile('elsewhere', 'web', t(50), { result: 'error' }),
      ]);
      const names = async (query: Record<string, string>) => {
        const { filters, limit } = parseReconcileParams(query);
        return (await reader.reconciles(filters, limit)).items.map(
          (item) => `${item.name}@${item.startedAt}`,
        );
      };
      expect(await names({ namespace: 'filters', name: 'web' })).toEqual([
        `web@${t(30).toISOString()}`,
        `web@${t(20).toISOString()}`,
        `web@${t(10).toISOString()}`,
      ]);
      expect(await names({ namespace: 'filters', result: 'error' })).toEqual([
        `api@${t(40).toISOString()}`,
        `web@${t(20).toISOString()}`,
      ]);
      expect(await names({ name: 'web', result: 'error' })).toEqual([
        `web@${t(50).toISOString()}`,
        `web@${t(20).toISOString()}`,
      ]);
      // since is inclusive, until exclusive.
      expect(
        await names({ namespace: 'filters', since: t(20).toISOString(), until: t(40).toISOString() }),
      ).toEqual([`web@${t(30).toISOString()}`, `web@${t(20).toISOString()}`]);
      // Offsets are honoured: 11:00:20+01:00 is 10:00:20Z.
      expect(await names({ namespace: 'filters', until: '2026-11-20T11:00:20+01:00' })).toEqual([
        `web@${t(10).toISOString()}`,
      ]);
      expect(await names({ namespace: 'nobody-here' })).toEqual([]);
    });

    it('pages with continue through every row exactly once, including rows sharing a start time', async () => {
      const rows = Array.from({ length: 11 }, (_, index) =>
        reconcile('paging', `p${String(index).padStart(2, '0')}`, t(100 + Math.floor(index / 3))),
      );
      await write(rows);
      const pages = await allPages({ namespace: 'paging', limit: '4' });
      expect(pages.map((page) => page.length)).toEqual([4, 4, 3]);
      const whole = (await reader.reconciles({ namespace: 'paging' }, 500)).items.map((item) => item.name);
      expect(pages.flat()).toEqual(whole);
      expect(new Set(whole).size).toBe(11);
      // An exact multiple of the limit ends without an empty page.
      expect((await allPages({ namespace: 'paging', limit: '11' })).map((page) => page.length)).toEqual([11]);
    });

    it('keeps paging stable while new rows arrive', async () => {
      await write(Array.from({ length: 6 }, (_, index) => reconcile('stable', `s${index}`, t(200 + index))));
      const first = parseReconcileParams({ namespace: 'stable', limit: '2' });
      const page1 = await reader.reconciles(first.filters, first.limit);
      expect(page1.items.map((item) => item.name)).toEqual(['s5', 's4']);

      // Newer rows (and one in the same millisecond as the cursor row) arrive between pages.
      await write([
        reconcile('stable', 'new-1', t(300)),
        reconcile('stable', 'same-ms-as-s4', t(204)),
        reconcile('stable', 'new-2', t(301)),
      ]);
      const rest: string[] = [];
      let token = page1.continue;
      while (token) {
        const params = parseReconcileParams({ namespace: 'stable', limit: '2', continue: token });
        const page = await reader.reconciles(params.filters, params.limit, params.after);
        rest.push(...page.items.map((item) => item.name));
        token = page.continue;
      }
      expect(rest).toEqual(['s3', 's2', 's1', 's0']);
    });

    it('refuses a continue token for other filters or a changed token before reading', () => {
      const token = `${Buffer.from(JSON.stringify({ at: t(1).toISOString(), id: 1, c: 'forged' })).toString('base64url')}`;
      expect(() => parseReconcileParams({ namespace: 'stable', continue: token })).toThrow(/continue/);
    });

    it('filters changes by actor, verb, result and time, with specs parsed back to objects', async () => {
      await write(
        [],
        [
          change('changes', 'web', t(400), { verb: 'create', patchType: null, specBefore: null, code: 201 }),
          change('changes', 'web', t(401), {
            actor: 'bob',
            verb: 'apply',
            patchType: 'application/apply-patch+yaml',
          }),
          change('changes', 'web', t(402), {
            actor: 'bob',
            role: 'viewer',
            specAfter: null,
            code: 403,
            reason: 'Forbidden',
            message: 'bob (role viewer) may not PATCH',
          }),
          change('changes', 'web', t(403), {
            verb: 'update',
            subresource: 'scale',
            code: 409,
            reason: 'Conflict',
          }),
          change('changes', 'web', t(404), { verb: 'delete', specAfter: null, patchType: null }),
        ],
      );
      const list = async (query: Record<string, string>) => {
        const params = parseChangeParams({ namespace: 'changes', ...query });
        return (await reader.changes(params.filters, params.limit, params.after)).items;
      };
      expect((await list({})).map((item) => item.verb)).toEqual([
        'delete',
        'update',
        'patch',
        'apply',
        'create',
      ]);
      expect((await list({ actor: 'bob' })).map((item) => item.code)).toEqual([403, 200]);
      expect((await list({ verb: 'apply' })).map((item) => item.actor)).toEqual(['bob']);
      expect((await list({ result: 'failure' })).map((item) => item.code)).toEqual([409, 403]);
      expect((await list({ result: 'success' })).map((item) => item.code)).toEqual([200, 200, 201]);
      expect((await list({ since: t(401).toISOString(), until: t(403).toISOString() })).length).toBe(2);
      expect((await list({ actor: 'bob', result: 'success', limit: '1' })).map((item) => item.verb)).toEqual([
        'apply',
      ]);

      const [created] = await list({ verb: 'create' });
      expect(created).toEqual({
        id: expect.any(Number),
        at: t(400).toISOString(),
        actor: 'alice',
        role: 'editor',
        actorEmail: null,
        actorGroups: null,
        authenticatedBy: null,
        verb: 'create',
        namespace: 'changes',
        name: 'web',
        subresource: null,
        patchType: null,
        specBefore: null,
        specAfter: { replicas: 2, image: 'nginx:1.27' },
        code: 201,
        reason: null,
        message: null,
        uid: 'uid-1',
        resourceVersion: '101',
        userAgent: 'curl/8.5.0',
        door: 'controlplane',
        sources: ['controlplane'],
        auditId: null,
        kubeUser: null,
        kubeGroups: null,
        impersonator: null,
        kubeActor: null,
        fieldManager: null,
        generation: null,
      });
    });

    it('pages changes with continue', async () => {
      await write(
        [],
        Array.from({ length: 5 }, (_, index) => change('change-paging', `c${index}`, t(500 + index))),
      );
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const params = parseChangeParams({
          namespace: 'change-paging',
          limit: '2',
          ...(token ? { continue: token } : {}),
        });
        const page = await reader.changes(params.filters, params.limit, params.after);
        seen.push(...page.items.map((item) => item.name));
        token = page.continue;
      } while (token);
      expect(seen).toEqual(['c4', 'c3', 'c2', 'c1', 'c0']);
    });

    it('exports every matching row in bounded batches, whatever the page limit', async () => {
      const rows = Array.from({ length: 1_203 }, (_, index) =>
        reconcile('bulk', `b${index}`, t(1_000 + Math.floor(index / 2))),
      );
      for (let index = 0; index < rows.length; index += 400) await write(rows.slice(index, index + 400));
      const sizes: number[] = [];
      const names: string[] = [];
      for await (const batch of reader.reconcileBatches({ namespace: 'bulk' })) {
        sizes.push(batch.length);
        names.push(...batch.map((item) => item.name));
      }
      expect(sizes).toEqual([500, 500, 203]);
      expect(new Set(names).size).toBe(1_203);
      expect(names[0]).toBe('b1202');
      expect(names.at(-1)).toBe('b0');
    });

    it('writes CSV with a header, RFC 4180 quoting, JSON columns as JSON text and no formulas', async () => {
      await write([
        reconcile('csv', 'web', t(600), {
          result: 'error',
          error: '=HYPERLINK("http://evil.example","click"), then "quotes"\nand a newline',
          actions: JSON.stringify([{ kind: 'delete', pod: 'web-1', reason: 'scale-down' }]),
        }),
      ]);
      const csv = exportSerializer('csv', RECONCILE_COLUMNS, JSON_COLUMNS);
      let text = csv.header;
      for await (const batch of reader.reconcileBatches({ namespace: 'csv' })) text += csv.lines(batch);
      const [header, ...records] = text.split('\r\n');
      expect(header).toBe(RECONCILE_COLUMNS.join(','));
      expect(records.at(-1)).toBe('');
      expect(records[0]).toContain(
        ',"[{""kind"":""delete"",""pod"":""web-1"",""reason"":""scale-down""}]",error,',
      );
      expect(records[0]).toContain(
        `,"'=HYPERLINK(""http://evil.example"",""click""), then ""quotes""\nand a newline",`,
      );
    });

    it('lists no-op counts by namespace and name', async () => {
      await sink.write({
        rows: [],
        changes: [],
        noops: [
          { namespace: 'noops', name: 'web', count: 4, lastAt: t(700) },
          { namespace: 'noops', name: 'api', count: 1, lastAt: t(701) },
          { namespace: 'other', name: 'web', count: 2, lastAt: t(702) },
        ],
      });
      expect(await reader.noops({ namespace: 'noops' })).toEqual([
        { namespace: 'noops', name: 'api', count: 1, lastAt: t(701).toISOString() },
        { namespace: 'noops', name: 'web', count: 4, lastAt: t(700).toISOString() },
      ]);
      expect((await reader.noops({ name: 'web' })).map((item) => item.namespace)).toEqual(['noops', 'other']);
    });

    describe('over HTTP (AuditController, in-process, with the Status filter)', () => {
      let app: INestApplication;
      let url: string;
      const get = (path: string, headers: Record<string, string> = {}) => fetch(`${url}${path}`, { headers });

      beforeAll(async () => {
        const moduleRef = await Test.createTestingModule({
          controllers: [AuditController],
          providers: [{ provide: AUDIT_DATABASE, useValue: audit }, testConfig],
        }).compile();
        app = moduleRef.createNestApplication({ logger: false });
        app.useGlobalFilters(new StatusExceptionFilter());
        await app.listen(0, '127.0.0.1');
        url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      });
      afterAll(async () => {
        await app?.close();
      });

      it('answers a ReconcileRecordList page and the next one through continue', async () => {
        const response = await get('/controlplane/v1/audit/reconciles?namespace=order&limit=3');
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        const body = (await response.json()) as {
          metadata: { continue?: string };
          items: { name: string; actions: unknown }[];
        };
        expect(body).toMatchObject({ apiVersion: 'controlplane/v1', kind: 'ReconcileRecordList' });
        expect(body.items.map((item) => item.name)).toEqual(['r4', 'r3', 'r2']);
        expect(Array.isArray(body.items[0]!.actions)).toBe(true);
        const next = await get(
          `/controlplane/v1/audit/reconciles?namespace=order&limit=3&continue=${encodeURIComponent(body.metadata.continue!)}`,
        );
        const rest = (await next.json()) as { metadata: object; items: { name: string }[] };
        expect(rest.items.map((item) => item.name)).toEqual(['r1']);
        expect(rest.metadata).toEqual({});
      });

      it('answers a ChangeRecordList and a ReconcileNoopList', async () => {
        const changes = await (
          await get('/controlplane/v1/audit/changes?namespace=changes&actor=bob')
        ).json();
        expect(changes).toMatchObject({
          apiVersion: 'controlplane/v1',
          kind: 'ChangeRecordList',
          items: [
            { code: 403, specAfter: null },
            { verb: 'apply', specAfter: { replicas: 2 } },
          ],
        });
        const noops = await (await get('/controlplane/v1/audit/noops?namespace=noops&name=web')).json();
        expect(noops).toMatchObject({ kind: 'ReconcileNoopList', items: [{ name: 'web', count: 4 }] });
      });

      it('exports CSV as an attachment, ignoring limit, by format or by Accept', async () => {
        for (const [path, headers] of [
          ['/controlplane/v1/audit/reconciles?namespace=bulk&format=csv&limit=1', {}],
          ['/controlplane/v1/audit/reconciles?namespace=bulk', { Accept: 'text/csv' }],
        ] as const) {
          const response = await get(path, headers);
          expect(response.status).toBe(200);
          expect(response.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
          expect(response.headers.get('content-disposition')).toMatch(
            /^attachment; filename="reconciles-\d{8}T\d{6}Z\.csv"$/,
          );
          const lines = (await response.text()).split('\r\n');
          expect(lines[0]).toBe(RECONCILE_COLUMNS.join(','));
          expect(lines).toHaveLength(1 + 1_203 + 1);
        }
      });

      it('exports NDJSON, one change per line', async () => {
        const response = await get('/controlplane/v1/audit/changes?namespace=changes', {
          Accept: 'application/x-ndjson',
        });
        expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
        expect(response.headers.get('content-disposition')).toMatch(
          /filename="changes-\d{8}T\d{6}Z\.ndjson"/,
        );
        const lines = (await response.text()).trimEnd().split('\n');
        expect(lines.map((line) => (JSON.parse(line) as { verb: string }).verb)).toEqual([
          'delete',
          'update',
          'patch',
          'apply',
          'create',
        ]);
      });

      it.each([
        ['reconciles?result=failed', 'result'],
        ['reconciles?format=xml', 'format'],
        ['reconciles?limit=0', 'limit'],
        ['reconciles?limit=-1', 'limit'],
        ['reconciles?limit=2.5', 'limit'],
        ['reconciles?limit=501', 'limit'],
        ['reconciles?limit=ten', 'limit'],
        ['reconciles?continue=garbage', 'continue'],
        ['reconciles?since=yesterday', 'since'],
        ['reconciles?until=2026-11-22', 'until'],
        ['reconciles?since=2026-11-22T10:00:00Z&until=2026-11-21T10:00:00Z', 'since'],
        ['reconciles?name=a&name=b', 'name'],
        ['reconciles?namespace=Bad_NS', 'namespace'],
        ['changes?verb=get', 'verb'],
        ['changes?result=error', 'result'],
        ['changes?actor=a&actor=b', 'actor'],
        ['changes?format=csv&limit=0', 'limit'],
        ['noops?namespace=a&namespace=b', 'namespace'],
      ])('answers GET %s with a 400 Status naming %s', async (path, field) => {
        const response = await get(`/controlplane/v1/audit/${path}`);
        expect(response.status).toBe(400);
        expect(await response.json()).toMatchObject({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'BadRequest',
          code: 400,
          details: { causes: [{ reason: 'FieldValueInvalid', field }] },
        });
      });

      it('answers a 500 Status when the database fails before an export starts, and cuts one that fails midway', async () => {
        /** The database, whose client fails reconcile reads from call number `failFrom` (0-based) on. */
        const failingFrom = (failFrom: number): Pick<AuditDatabase, 'client'> => {
          let calls = 0;
          const reconcileRecord = new Proxy(prisma.reconcileRecord, {
            get: (target, key) =>
              key === 'findMany'
                ? (args: Parameters<typeof target.findMany>[0]) => {
                    if (calls++ >= failFrom) return Promise.reject(new Error('database went away'));
                    return target.findMany(args);
                  }
                : Reflect.get(target, key),
          });
          const client = new Proxy(prisma, {
            get: (target, key) => (key === 'reconcileRecord' ? reconcileRecord : Reflect.get(target, key)),
          });
          return { client: async () => client };
        };
        for (const [failFrom, expectation] of [
          [0, 'status'],
          [1, 'cut'],
        ] as const) {
          const moduleRef = await Test.createTestingModule({
            controllers: [AuditController],
            providers: [{ provide: AUDIT_DATABASE, useValue: failingFrom(failFrom) }, testConfig],
          }).compile();
          const failing = moduleRef.createNestApplication({ logger: false });
          failing.useGlobalFilters(new StatusExceptionFilter());
          await failing.listen(0, '127.0.0.1');
          try {
            const response = await fetch(
              `${await failing.getUrl()}/controlplane/v1/audit/reconciles?namespace=bulk&format=csv`,
            );
            if (expectation === 'status') {
              expect(response.status).toBe(500);
              expect(await response.json()).toMatchObject({
                kind: 'Status',
                code: 500,
                message: 'internal error',
              });
            } else {
              expect(response.status).toBe(200);
              // The first 500 rows went out; the connection is cut so the file is not taken as complete.
              await expect(response.text()).rejects.toThrow();
            }
          } finally {
            await failing.close();
          }
        }
      });

      it('refuses a tampered continue token with a 400 Status', async () => {
        const first = (await (
          await get('/controlplane/v1/audit/reconciles?namespace=order&limit=1')
        ).json()) as {
          metadata: { continue: string };
        };
        const token = first.metadata.continue;
        const payload = JSON.parse(Buffer.from(token, 'base64url').toString()) as { id: number };
        const tampered = Buffer.from(JSON.stringify({ ...payload, id: payload.id + 1 })).toString(
          'base64url',
        );
        for (const bad of [tampered, `${token}A`]) {
          const response = await get(
            `/controlplane/v1/audit/reconciles?namespace=order&limit=1&continue=${bad}`,
          );
          expect(response.status).toBe(400);
          expect(await response.json()).toMatchObject({ details: { causes: [{ field: 'continue' }] } });
        }
        const otherFilter = await get(`/controlplane/v1/audit/reconciles?namespace=paging&continue=${token}`);
        expect(otherFilter.status).toBe(400);
      });
    });
  });
}
