// Issue 13 as an attacker would try it, against the built control plane and the local cluster: a token limited
// to one namespace reaching for others (REST lists, watches and cached reads, pods, events, the audit and its
// exports, socket.io); query keys Object.prototype knows; write refusals of every kind in the change audit;
// a fieldManager naming someone else; and one request budget per token across routes and the live gateway, and per address
// without a token.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect as tcpConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { io, type Socket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SubscribeAck } from '../libs/nginx-api/src/index.js';
import {
  TOKENS,
  TOKEN_NAMES,
  nginxManifest,
  startControlPlane,
  type ControlPlane,
} from './support/control-plane.js';
import { kubectl } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';

const NS_A = uniqueName('sec-a');
const NS_B = uniqueName('sec-b');
const LIMITED = { name: 'lee-limited', token: 'limited-editor-token-0123456789' };
let cp: ControlPlane;
const sockets: Socket[] = [];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kubernetes objects of many shapes, read loosely
type Json = Record<string, any>;

const limited = (path: string, init: RequestInit = {}) =>
  fetch(`${cp.url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${LIMITED.token}`, ...(init.headers as Record<string, string>) },
  });
const nginxes = (ns: string) => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`;
const json = { 'Content-Type': 'application/json' };
const mergePatch = { 'Content-Type': 'application/merge-patch+json' };

beforeAll(async () => {
  for (const ns of [NS_A, NS_B]) await kubectl('create', 'namespace', ns);
  const tokens = join(mkdtempSync(join(tmpdir(), 'ngx-sec-')), 'tokens.yaml');
  writeFileSync(
    tokens,
    `tokens:\n  - { name: ${LIMITED.name}, role: editor, token: ${LIMITED.token}, namespaces: [${NS_A}] }\n`,
  );
  cp = await startControlPlane({ AUTH_TOKENS_FILE: tokens });
  for (const ns of [NS_A, NS_B]) {
    const created = await cp.as('admin')(nginxes(ns), {
      method: 'POST',
      headers: json,
      body: JSON.stringify(nginxManifest(`web-${ns}`, 0)),
    });
    expect(created.status).toBe(201);
  }
  // Cached reads need the informer to have seen both.
  await waitFor('both Nginxes in the cache', async () => {
    const list = (await (
      await cp.as('admin')('/apis/mycompany.com/v1/nginxes?resourceVersion=0')
    ).json()) as Json;
    return list.items.filter((n: Json) => [NS_A, NS_B].includes(n.metadata.namespace)).length === 2;
  });
});
afterAll(async () => {
  for (const socket of sockets) socket.close();
  await cp?.stop();
  for (const ns of [NS_A, NS_B]) await kubectl('delete', 'namespace', ns, '--wait=false').catch(() => {});
});

async function changeRecords(filters: string): Promise<Json[]> {
  const answer = await cp.as('admin')(`/controlplane/v1/audit/changes?${filters}`);
  return ((await answer.json()) as Json).items as Json[];
}

describe('a token limited to one namespace', () => {
  it.each([
    ['a list of every namespace', '/apis/mycompany.com/v1/nginxes'],
    [
      'a list of every namespace naming its own in the query',
      `/apis/mycompany.com/v1/nginxes?namespace=${NS_A}`,
    ],
    [
      'a cached list of every namespace',
      `/apis/mycompany.com/v1/nginxes?resourceVersion=0&namespace=${NS_A}`,
    ],
    ['a watch of every namespace', `/apis/mycompany.com/v1/nginxes?watch=true&namespace=${NS_A}`],
    ['a list of another namespace', nginxes(NS_B)],
    ['a cached list of another namespace', `${nginxes(NS_B)}?resourceVersion=0`],
    ['a watch of another namespace', `${nginxes(NS_B)}?watch=true`],
    ['an object of another namespace', `${nginxes(NS_B)}/web-${NS_B}`],
    ['the pods of another namespace', `/controlplane/v1/namespaces/${NS_B}/nginxes/web-${NS_B}/pods`],
    ['the events of another namespace', `/controlplane/v1/namespaces/${NS_B}/nginxes/web-${NS_B}/events`],
    ['the audit of every namespace', '/controlplane/v1/audit/changes'],
    ['the audit of another namespace', `/controlplane/v1/audit/reconciles?namespace=${NS_B}`],
    ['an export of every namespace', '/controlplane/v1/audit/changes?format=csv'],
    [
      'the audit with the namespace given twice',
      `/controlplane/v1/audit/changes?namespace=${NS_A}&namespace=${NS_B}`,
    ],
    ['the no-op counts of every namespace', '/controlplane/v1/audit/noops'],
  ])('is refused %s (403)', async (_what, path) => {
    const answer = await limited(path);
    expect(answer.status).toBe(403);
    expect(((await answer.json()) as Json).reason).toBe('Forbidden');
  });

  it('reads only its own namespace: lists, cached lists, watches, pods, events and the audit', async () => {
    for (const query of ['', '?resourceVersion=0']) {
      const list = (await (await limited(`${nginxes(NS_A)}${query}`)).json()) as Json;
      expect(list.items.map((n: Json) => n.metadata.namespace)).toEqual([NS_A]);
    }
    const watch = await limited(`${nginxes(NS_A)}?watch=true&timeoutSeconds=1`);
    expect(watch.status).toBe(200);
    const events = (await watch.text())
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Json);
    expect(events.map((e) => e.object.metadata.namespace)).toEqual([NS_A]);
    expect((await limited(`/controlplane/v1/namespaces/${NS_A}/nginxes/web-${NS_A}/pods`)).status).toBe(200);
    expect((await limited(`/controlplane/v1/namespaces/${NS_A}/nginxes/web-${NS_A}/events`)).status).toBe(
      200,
    );
    const audit = (await (await limited(`/controlplane/v1/audit/changes?namespace=${NS_A}`)).json()) as Json;
    expect(audit.items.length).toBeGreaterThan(0);
    expect(new Set(audit.items.map((c: Json) => c.namespace))).toEqual(new Set([NS_A]));
    const ndjson = await (
      await limited(`/controlplane/v1/audit/changes?namespace=${NS_A}&format=ndjson`)
    ).text();
    expect(
      new Set(
        ndjson
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as Json).namespace),
      ),
    ).toEqual(new Set([NS_A]));
  });

  it('may not watch other namespaces live, and may watch its own', async () => {
    const socket = io(cp.url, {
      path: '/socket.io',
      auth: { token: LIMITED.token },
      transports: ['websocket'],
      reconnection: false,
    });
    sockets.push(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('connect_error', reject);
    });
    const ask = (request: unknown): Promise<SubscribeAck> =>
      socket.timeout(10_000).emitWithAck('subscribe', request);
    expect(await ask({ scope: 'namespace' })).toMatchObject({ ok: false, code: 403 });
    expect(await ask({ scope: 'namespace', namespace: NS_B })).toMatchObject({ ok: false, code: 403 });
    expect(await ask({ scope: 'nginx', namespace: NS_B, name: `web-${NS_B}` })).toMatchObject({
      ok: false,
      code: 403,
    });
    const own = await ask({ scope: 'namespace', namespace: NS_A });
    expect(own.ok && own.nginxes.map((n) => n.metadata.namespace)).toEqual([NS_A]);
  });

  it('has its write to another namespace refused, and the refusal recorded in the change audit', async () => {
    const name = uniqueName('foreign');
    const answer = await limited(nginxes(NS_B), {
      method: 'POST',
      headers: json,
      body: JSON.stringify(nginxManifest(name)),
    });
    expect(answer.status).toBe(403);
    const [record] = await waitFor('the refusal in the change audit', async () => {
      const rows = await changeRecords(`namespace=${NS_B}&actor=${LIMITED.name}`);
      return rows.length > 0 && rows;
    });
    expect(record).toMatchObject({ verb: 'create', code: 403, reason: 'Forbidden', namespace: NS_B });
    // Nothing was created: kube-apiserver itself (not our cache) has no such Nginx, and NS_B only its own.
    await expect(kubectl('get', 'ngx', name, '-n', NS_B, '-o', 'name')).rejects.toThrow(/NotFound|not found/);
    const inB = JSON.parse(await kubectl('get', 'ngx', '-n', NS_B, '-o', 'json')) as Json;
    expect(inB.items.map((n: Json) => n.metadata.name)).toEqual([`web-${NS_B}`]);
  });
});

describe('query keys that Object.prototype knows', () => {
  it.each(['valueOf=1', '__proto__=1', 'constructor=1', 'toString=x', 'hasOwnProperty=1'])(
    'are ignored on reads and writes (%s), and the write is audited',
    async (query) => {
      expect((await cp.as('viewer')(`${nginxes(NS_A)}?${query}`)).status).toBe(200);
      expect((await cp.as('viewer')(`${nginxes(NS_A)}?resourceVersion=0&${query}`)).status).toBe(200);
      expect((await cp.as('viewer')(`/controlplane/v1/audit/changes?${query}`)).status).toBe(200);
      const patched = await cp.as('editor')(`${nginxes(NS_A)}/web-${NS_A}?${query}`, {
        method: 'PATCH',
        headers: mergePatch,
        body: JSON.stringify({ spec: { replicas: 0 } }),
      });
      expect(patched.status).toBe(200);
      const resourceVersion = ((await patched.json()) as Json).metadata.resourceVersion;
      await waitFor('the patch in the change audit', async () =>
        (await changeRecords(`namespace=${NS_A}&actor=${TOKEN_NAMES.editor}&verb=patch`)).some(
          (row) => row.resourceVersion === resourceVersion,
        ),
      );
    },
  );

  it('do not make a label selector match every object', async () => {
    for (const selector of ['constructor', 'toString', 'hasOwnProperty'])
      for (const cached of ['&resourceVersion=0', '']) {
        const list = (await (
          await cp.as('viewer')(`${nginxes(NS_A)}?labelSelector=${selector}${cached}`)
        ).json()) as Json;
        expect(list.items).toEqual([]);
      }
  });

  it('are unknown fields in a spec', async () => {
    for (const key of ['constructor', 'toString', '__proto__']) {
      const answer = await cp.as('editor')(`${nginxes(NS_A)}?fieldValidation=Strict`, {
        method: 'POST',
        headers: json,
        body: `{"apiVersion":"mycompany.com/v1","kind":"Nginx","metadata":{"name":"${uniqueName('proto')}"},"spec":{"replicas":1,"${key}":{"x":1}}}`,
      });
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as Json).message).toContain(`unknown field "spec.${key}"`);
    }
  });
});

describe('the change audit of refused writes', () => {
  it.each([
    ['a bad name in the path', 'PATCH', `${nginxes(NS_A)}/Bad_Name`, 400],
    ['an unknown subresource', 'PUT', `${nginxes(NS_A)}/web-${NS_A}/exec`, 404],
    ['a bad namespace in the path', 'POST', '/apis/mycompany.com/v1/namespaces/No_Such/nginxes', 400],
    ['an unsupported media type', 'PATCH', `${nginxes(NS_A)}/web-${NS_A}`, 415],
  ])('records %s with its code', async (_what, method, path, code) => {
    const agent = `refusal-test-${uniqueName('ua')}`;
    const answer = await cp.as('editor')(path, {
      method,
      headers: {
        'Content-Type': code === 415 ? 'text/plain' : 'application/merge-patch+json',
        'User-Agent': agent,
      },
      body: '{"spec":{"replicas":1}}',
    });
    expect(answer.status).toBe(code);
    await waitFor(`the ${code} in the change audit`, async () =>
      (await changeRecords(`actor=${TOKEN_NAMES.editor}&result=failure&limit=100`)).some(
        (row) => row.userAgent === agent && row.code === code,
      ),
    );
  });

  it('records the true outcome of a create whose client went away before the answer', async () => {
    const name = uniqueName('gone');
    const body = JSON.stringify(nginxManifest(name));
    const url = new URL(cp.url);
    await new Promise<void>((resolve, reject) => {
      const socket = tcpConnect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST ${nginxes(NS_A)} HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${TOKENS.editor}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
          () => {
            socket.end(); // the whole request sent, and the client gone before any answer
            resolve();
          },
        );
      });
      socket.on('error', reject);
    });
    const [record] = await waitFor('the create in the change audit', async () => {
      const rows = await changeRecords(`namespace=${NS_A}&name=${name}`);
      return rows.length > 0 && rows;
    });
    expect(record).toMatchObject({ verb: 'create', code: 201 });
    expect((await cp.as('viewer')(`${nginxes(NS_A)}/${name}`)).status).toBe(200);
  });

  it('does not record a dry run', async () => {
    const name = uniqueName('dry');
    const answer = await cp.as('editor')(`${nginxes(NS_A)}?dryRun=All`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify(nginxManifest(name)),
    });
    expect(answer.status).toBe(201);
    // A real write after it, by the same caller: once its record is there, the dry run's would have been too.
    const marker = uniqueName('after-dry');
    const real = await cp.as('editor')(nginxes(NS_A), {
      method: 'POST',
      headers: json,
      body: JSON.stringify(nginxManifest(marker)),
    });
    expect(real.status).toBe(201);
    await waitFor('the later real create in the change audit', async () =>
      (await changeRecords(`namespace=${NS_A}&name=${marker}`)).some((row) => row.code === 201),
    );
    expect(await changeRecords(`namespace=${NS_A}&name=${name}`)).toEqual([]);
    await expect(kubectl('get', 'ngx', name, '-n', NS_A, '-o', 'name')).rejects.toThrow(/NotFound|not found/);
    await kubectl('delete', 'ngx', marker, '-n', NS_A, '--wait=false');
  });
});

describe('field managers', () => {
  it('are kept as the client names them (as on kube-apiserver); the change record names the caller', async () => {
    const answer = await cp.as('editor')(`${nginxes(NS_A)}/web-${NS_A}?fieldManager=alice`, {
      method: 'PATCH',
      headers: mergePatch,
      body: JSON.stringify({ spec: { image: 'nginx:1.27' } }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('warning')).toBeNull();
    const object = (await (await cp.as('admin')(`${nginxes(NS_A)}/web-${NS_A}`)).json()) as Json;
    const managers = object.metadata.managedFields.map((m: Json) => m.manager);
    expect(managers).toContain('alice');
    const changes = await waitFor('the change record of the patch', async () => {
      const list = (await (
        await cp.as('admin')(`/controlplane/v1/audit/changes?namespace=${NS_A}&verb=patch`)
      ).json()) as { items: Json[] };
      return list.items.find((c: Json) => c.name === `web-${NS_A}` && c.code === 200);
    });
    expect(changes.actor).toBe(TOKEN_NAMES.editor);
  });
});

describe('request budgets', () => {
  let tight: ControlPlane;
  beforeAll(async () => {
    // 2 requests a second per token (20 per 10 s window), 1 per address without a token (10 per window).
    tight = await startControlPlane({ RATE_LIMIT_RPS: '2', ANON_RATE_LIMIT_RPS: '1' });
  });
  afterAll(() => tight?.stop());

  it('is one per token across every route and the live gateway', async () => {
    // Relayed plain reads (the last two) are answered ahead of Express: from the same budget, once each.
    const routes = [
      '/apis',
      `${nginxes(NS_A)}?resourceVersion=0`,
      '/controlplane/v1/audit/changes?limit=1',
      nginxes(NS_A),
      `${nginxes(NS_A)}/web-${NS_A}`,
    ];
    const codes: number[] = [];
    for (let i = 0; i < 30; i++) codes.push((await tight.as('viewer')(routes[i % routes.length]!)).status);
    expect(codes.slice(0, 20).every((code) => code === 200)).toBe(true);
    expect(codes.slice(20).every((code) => code === 429)).toBe(true);
    const refused = await tight.as('viewer')('/apis');
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    // The same token's live connection is refused too; another token is not.
    const socket = io(tight.url, {
      path: '/socket.io',
      auth: { token: TOKENS.viewer },
      transports: ['websocket'],
      reconnection: false,
    });
    sockets.push(socket);
    const error = await new Promise<Error | undefined>((resolve) => {
      socket.once('connect', () => resolve(undefined));
      socket.once('connect_error', resolve);
    });
    expect(error?.message).toBe('too many requests');
    expect((await tight.as('editor')('/apis')).status).toBe(200);
  });

  it('is one per address without a token: 401 floods and the readiness probe, not the liveness probe', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 8; i++) codes.push((await fetch(`${tight.url}/apis`)).status);
    for (let i = 0; i < 6; i++) codes.push((await fetch(`${tight.url}/readyz`)).status);
    expect(codes.slice(0, 8).every((code) => code === 401)).toBe(true);
    expect(codes.slice(10)).toEqual([429, 429, 429, 429]);
    for (let i = 0; i < 20; i++) expect((await fetch(`${tight.url}/healthz`)).status).toBe(200);
  });
});

describe('what one caller may hold open', () => {
  let bounded: ControlPlane;
  beforeAll(async () => {
    bounded = await startControlPlane({ MAX_WATCHES_PER_TOKEN: '2' });
  });
  afterAll(() => bounded?.stop());

  it('is at most MAX_WATCHES_PER_TOKEN relayed watches per token, each freed when it ends', async () => {
    const open = () => {
      const abort = new AbortController();
      const answer = bounded.as('viewer')(`${nginxes(NS_A)}?watch=true&timeoutSeconds=60`, {
        signal: abort.signal,
      });
      return { answer, abort };
    };
    const watches = [open(), open()];
    for (const watch of watches) expect((await watch.answer).status).toBe(200);
    const third = await bounded.as('viewer')(`${nginxes(NS_A)}?watch=true&timeoutSeconds=1`);
    expect(third.status).toBe(429);
    expect(((await third.json()) as Json).message).toContain('watches open');
    expect((await bounded.as('editor')(`${nginxes(NS_A)}?watch=true&timeoutSeconds=1`)).status).toBe(200);
    watches[0]!.abort.abort();
    await waitFor('a slot freed', async () => {
      const again = await bounded.as('viewer')(`${nginxes(NS_A)}?watch=true&timeoutSeconds=1`);
      await again.body?.cancel();
      return again.status === 200;
    });
    watches[1]!.abort.abort();
  });

  it('is at most 20 live connections per token', async () => {
    const connect = () =>
      new Promise<Error | undefined>((resolve) => {
        const socket = io(bounded.url, {
          path: '/socket.io',
          auth: { token: TOKENS.editor },
          transports: ['websocket'],
          reconnection: false,
        });
        sockets.push(socket);
        socket.once('connect', () => resolve(undefined));
        socket.once('connect_error', resolve);
      });
    const first = await Promise.all(Array.from({ length: 20 }, connect));
    expect(first.every((error) => error === undefined)).toBe(true);
    expect((await connect())?.message).toBe('too many connections');
  });
});
