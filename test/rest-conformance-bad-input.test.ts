// Issue 30's bad input, sent as the same raw HTTP requests to kube-apiserver and to our API: content types
// (none, with a charset, YAML, an apply patch on a non-patch verb, a vendor type), bodies (empty, not JSON, JSON
// of the wrong kind), methods no route serves, and DeleteCollection (nothing matched, a bad selector, a field
// selector, a dry run, a namespace-limited caller in another namespace). Each must be answered with the same
// code and reason by both, nothing may be half-deleted, and each Nginx DeleteCollection removed through our API
// is one change record.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubeApiServer, ourApi, type Server } from './support/conformance.js';
import { startControlPlane, type ControlPlane } from './support/control-plane.js';
import { kubectl } from './support/kubectl.js';
import { uniqueName, waitFor } from './support/wait.js';
import {
  ANALYSIS_TEMPLATE,
  ISSUE_46_BAD_SPECS,
  UNCOMPILABLE_REGEX,
  canaryStrategy,
} from './support/canary-specs.js';

const LIMITED = { name: 'lim-editor', token: 'limited-token-0123456789abcdef', user: 'conformance-limited' };
const scratch = mkdtempSync(join(tmpdir(), 'ngx-conformance-input-'));
let cp: ControlPlane;
let kube: Server;
let ours: Server;

const nginxes = (ns: string) => `/apis/mycompany.com/v1/namespaces/${ns}/nginxes`;
const manifest = (name: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    apiVersion: 'mycompany.com/v1',
    kind: 'Nginx',
    metadata: { name },
    spec: { replicas: 0 },
    ...extra,
  });

beforeAll(async () => {
  const namespaces = [uniqueName('input-kube'), uniqueName('input-ours')] as const;
  const tokens = join(scratch, 'tokens.yaml');
  writeFileSync(
    tokens,
    `tokens:\n  - { name: ${LIMITED.name}, role: editor, token: ${LIMITED.token}, namespaces: [${namespaces[1]}] }\n`,
  );
  await Promise.all(namespaces.map((ns) => kubectl('create', 'namespace', ns)));
  // On kube-apiserver the limited caller is a user bound to edit Nginxes in its namespace only.
  await kubectl(
    'create',
    'role',
    'nginx-editor',
    '--verb=*',
    '--resource=nginxes.mycompany.com',
    '-n',
    namespaces[0],
  );
  await kubectl(
    'create',
    'rolebinding',
    'nginx-editor',
    '--role=nginx-editor',
    `--user=${LIMITED.user}`,
    '-n',
    namespaces[0],
  );
  cp = await startControlPlane({ AUTH_TOKENS_FILE: tokens });
  kube = kubeApiServer(namespaces[0]);
  ours = ourApi(cp, namespaces[1], scratch);
  for (const server of [kube, ours])
    for (const name of ['keep', 'swept-1', 'swept-2'])
      expect(
        (
          await send(server, {
            method: 'POST',
            path: nginxes(server.namespace),
            body: manifest(name, labels(name)),
          })
        ).code,
      ).toBe(201);
}, 120_000);

afterAll(async () => {
  await cp?.stop();
  for (const server of [kube, ours].filter(Boolean))
    await kubectl('delete', 'namespace', server.namespace, '--wait=false').catch(() => {});
});

function labels(name: string) {
  return { metadata: { name, labels: { role: name.startsWith('swept') ? 'swept' : 'kept' } } };
}

interface Request {
  method: string;
  path: string;
  contentType?: string;
  body?: string;
  accept?: string;
  /** As the caller limited to the server's own namespace (on kube-apiserver, by impersonation). */
  limited?: boolean;
}

interface Answer {
  code: number;
  reason: string | undefined;
  kind: string | undefined;
  items: string[];
  /** A Status's causes, `reason field`, sorted. */
  causes: string[];
}

async function send(server: Server, request: Request): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (request.contentType !== undefined) headers['Content-Type'] = request.contentType;
  if (request.accept !== undefined) headers.Accept = request.accept;
  if (request.limited && server.name === 'kube-apiserver') headers['Impersonate-User'] = LIMITED.user;
  if (request.limited && server.name === 'ours') headers.Authorization = `Bearer ${LIMITED.token}`;
  const response = await server.fetch(request.path, {
    method: request.method,
    headers,
    // Bytes, so that fetch adds no Content-Type of its own.
    body: request.body === undefined ? undefined : Buffer.from(request.body),
  });
  const text = await response.text();
  let body: {
    kind?: string;
    reason?: string;
    items?: { metadata: { name: string } }[];
    details?: { causes?: { reason: string; field: string }[] };
  } = {};
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    body = {};
  }
  return {
    code: response.status,
    reason: body.kind === 'Status' ? body.reason : undefined,
    kind: body.kind,
    items: (body.items ?? []).map((item) => item.metadata.name).sort(),
    causes: (body.details?.causes ?? []).map((c) => `${c.reason} ${c.field}`).sort(),
  };
}

/** A case: the request, its path made in each server's namespace (`ns`), and the other server's namespace. */
type Case = { what: string; request: (ns: string, other: string) => Request };

const writes: Case[] = [
  {
    what: 'POST without a Content-Type',
    request: (ns) => ({ method: 'POST', path: nginxes(ns), body: manifest('no-type') }),
  },
  {
    what: 'POST application/json; charset=utf-8',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json; charset=utf-8',
      body: manifest('charset'),
    }),
  },
  {
    what: 'POST application/yaml',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/yaml',
      body: 'apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: yaml\nspec:\n  replicas: 0\n',
    }),
  },
  {
    what: 'POST application/apply-patch+yaml',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/apply-patch+yaml',
      body: manifest('apply-post'),
    }),
  },
  {
    what: 'POST a vendor media type',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/vnd.mycompany.nginx+json',
      body: manifest('vendor'),
    }),
  },
  {
    what: 'PUT without a Content-Type (and no resourceVersion)',
    request: (ns) => ({ method: 'PUT', path: `${nginxes(ns)}/keep`, body: manifest('keep', labels('keep')) }),
  },
  {
    what: 'PATCH without a Content-Type',
    request: (ns) => ({ method: 'PATCH', path: `${nginxes(ns)}/keep`, body: '{"spec":{"replicas":1}}' }),
  },
  {
    what: 'PATCH application/json',
    request: (ns) => ({
      method: 'PATCH',
      path: `${nginxes(ns)}/keep`,
      contentType: 'application/json',
      body: '{"spec":{"replicas":1}}',
    }),
  },
  {
    what: 'PUT application/apply-patch+yaml',
    request: (ns) => ({
      method: 'PUT',
      path: `${nginxes(ns)}/keep`,
      contentType: 'application/apply-patch+yaml',
      body: manifest('keep'),
    }),
  },
  {
    what: 'POST an empty body',
    request: (ns) => ({ method: 'POST', path: nginxes(ns), contentType: 'application/json', body: '' }),
  },
  {
    what: 'POST an empty body without a Content-Type',
    request: (ns) => ({ method: 'POST', path: nginxes(ns) }),
  },
  {
    what: 'POST a body that is not JSON',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json',
      body: 'replicas=3',
    }),
  },
  {
    what: 'POST JSON of the wrong kind (a Pod)',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json',
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'pod' },
        spec: { containers: [] },
      }),
    }),
  },
  {
    what: 'POST an Nginx of another version',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json',
      body: manifest('v2', { apiVersion: 'mycompany.com/v2' }),
    }),
  },
  {
    what: 'PUT JSON of the wrong kind',
    request: (ns) => ({
      method: 'PUT',
      path: `${nginxes(ns)}/keep`,
      contentType: 'application/json',
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep' } }),
    }),
  },
  {
    what: 'POST an object with no kind',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json',
      body: JSON.stringify({
        apiVersion: 'mycompany.com/v1',
        metadata: { name: 'no-kind' },
        spec: { replicas: 0 },
      }),
    }),
  },
  {
    what: 'POST another kind of this apiVersion',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json',
      body: manifest('other-kind', { kind: 'Deployment' }),
    }),
  },
  {
    what: 'POST an array',
    request: (ns) => ({ method: 'POST', path: nginxes(ns), contentType: 'application/json', body: '[]' }),
  },
  {
    what: 'POST replicas -1 and a broken rule (schema, scale and CEL causes)',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json',
      body: manifest('two-causes', { spec: { replicas: -1, minReadySeconds: 700 } }),
    }),
  },
  {
    what: 'POST replicas of the wrong type (the rules not checked)',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json',
      body: manifest('typed', { spec: { replicas: 'two', minReadySeconds: 700 } }),
    }),
  },
  {
    what: 'POST replicas null (no value)',
    request: (ns) => ({
      method: 'POST',
      path: nginxes(ns),
      contentType: 'application/json',
      body: manifest('null', { spec: { replicas: null } }),
    }),
  },
  {
    what: 'POST an unknown field (Warn, the default)',
    request: (ns) => ({
      method: 'POST',
      path: `${nginxes(ns)}?dryRun=All`,
      contentType: 'application/json',
      body: manifest('unknown', { spec: { replicas: 0, sise: 1 } }),
    }),
  },
  {
    what: 'POST an unknown field under Strict',
    request: (ns) => ({
      method: 'POST',
      path: `${nginxes(ns)}?dryRun=All&fieldValidation=Strict`,
      contentType: 'application/json',
      body: manifest('unknown', { spec: { replicas: 0, sise: 1 } }),
    }),
  },
  {
    what: 'POST an unknown field and a bad value under Strict',
    request: (ns) => ({
      method: 'POST',
      path: `${nginxes(ns)}?dryRun=All&fieldValidation=Strict`,
      contentType: 'application/json',
      body: manifest('unknown', { spec: { replicas: -1, sise: 1 } }),
    }),
  },
  {
    what: 'POST an unknown field and a bad value (Warn)',
    request: (ns) => ({
      method: 'POST',
      path: `${nginxes(ns)}?dryRun=All`,
      contentType: 'application/json',
      body: manifest('unknown', { spec: { replicas: -1, sise: 1 } }),
    }),
  },
  {
    what: 'PUT scale without apiVersion and kind',
    request: (ns) => ({
      method: 'PUT',
      path: `${nginxes(ns)}/keep/scale?dryRun=All`,
      body: JSON.stringify({ metadata: { name: 'keep' }, spec: { replicas: 1 } }),
    }),
  },
  {
    what: 'PUT scale of another apiVersion',
    request: (ns) => ({
      method: 'PUT',
      path: `${nginxes(ns)}/keep/scale`,
      body: JSON.stringify({
        apiVersion: 'autoscaling/v2',
        kind: 'Scale',
        metadata: { name: 'keep' },
        spec: { replicas: 1 },
      }),
    }),
  },
  {
    what: 'PUT scale replicas -1',
    request: (ns) => ({
      method: 'PUT',
      path: `${nginxes(ns)}/keep/scale`,
      body: JSON.stringify({ metadata: { name: 'keep' }, spec: { replicas: -1 } }),
    }),
  },
  {
    what: 'PATCH scale replicas 1001',
    request: (ns) => ({
      method: 'PATCH',
      path: `${nginxes(ns)}/keep/scale`,
      contentType: 'application/merge-patch+json',
      body: '{"spec":{"replicas":1001}}',
    }),
  },
];

const protobuf: Case[] = [
  {
    what: 'GET asking for protobuf only',
    request: (ns) => ({ method: 'GET', path: nginxes(ns), accept: 'application/vnd.kubernetes.protobuf' }),
  },
  {
    what: 'GET asking for protobuf or JSON',
    request: (ns) => ({
      method: 'GET',
      path: `${nginxes(ns)}/keep`,
      accept: 'application/vnd.kubernetes.protobuf, application/json',
    }),
  },
];

const methods: Case[] = [
  {
    what: 'POST to an object',
    request: (ns) => ({
      method: 'POST',
      path: `${nginxes(ns)}/keep`,
      contentType: 'application/json',
      body: manifest('keep'),
    }),
  },
  {
    what: 'PUT to the collection',
    request: (ns) => ({
      method: 'PUT',
      path: nginxes(ns),
      contentType: 'application/json',
      body: manifest('keep'),
    }),
  },
  {
    what: 'PATCH the collection',
    request: (ns) => ({
      method: 'PATCH',
      path: nginxes(ns),
      contentType: 'application/merge-patch+json',
      body: '{}',
    }),
  },
  {
    what: 'DELETE the status subresource',
    request: (ns) => ({ method: 'DELETE', path: `${nginxes(ns)}/keep/status` }),
  },
  {
    what: 'POST to the scale subresource',
    request: (ns) => ({
      method: 'POST',
      path: `${nginxes(ns)}/keep/scale`,
      contentType: 'application/json',
      body: '{}',
    }),
  },
];

const collectionDeletes: Case[] = [
  {
    what: 'DeleteCollection whose selector matches nothing',
    request: (ns) => ({ method: 'DELETE', path: `${nginxes(ns)}?labelSelector=role%3Dnobody` }),
  },
  {
    what: 'DeleteCollection with a bad label selector',
    request: (ns) => ({ method: 'DELETE', path: `${nginxes(ns)}?labelSelector=role+in+(` }),
  },
  {
    what: 'DeleteCollection with a bad field selector',
    request: (ns) => ({ method: 'DELETE', path: `${nginxes(ns)}?fieldSelector=spec.replicas%3D0` }),
  },
  {
    what: 'DeleteCollection as a caller limited to another namespace',
    request: (_ns, other) => ({
      method: 'DELETE',
      path: `${nginxes(other)}?labelSelector=role%3Dswept`,
      limited: true,
    }),
  },
  {
    what: 'DeleteCollection as a dry run',
    request: (ns) => ({ method: 'DELETE', path: `${nginxes(ns)}?labelSelector=role%3Dswept&dryRun=All` }),
  },
  {
    what: 'DeleteCollection with a bad DeleteOptions body',
    request: (ns) => ({
      method: 'DELETE',
      path: `${nginxes(ns)}?labelSelector=role%3Dswept`,
      contentType: 'application/json',
      body: '{"propagationPolicy":"Sideways"}',
    }),
  },
  {
    what: 'DeleteCollection by field selector',
    request: (ns) => ({
      method: 'DELETE',
      path: `${nginxes(ns)}?fieldSelector=metadata.name%3Dswept-1&propagationPolicy=Background`,
    }),
  },
  {
    what: 'DeleteCollection by label selector',
    request: (ns) => ({ method: 'DELETE', path: `${nginxes(ns)}?labelSelector=role%3Dswept` }),
  },
  {
    what: 'DeleteCollection of every namespace',
    request: () => ({ method: 'DELETE', path: '/apis/mycompany.com/v1/nginxes?labelSelector=role%3Dnobody' }),
  },
];

// Issue 34's fields, each bad in one way, created in each namespace (a dry run: nothing is kept either way).
const [analysis, canary] = [ANALYSIS_TEMPLATE, canaryStrategy];
const issue34Specs: [string, Record<string, unknown>][] = [
  ['steps not a list', canary('setWeight: 20')],
  ['setWeight a string', canary([{ setWeight: '20' }])],
  ['setWeight 101', canary([{ setWeight: 101 }])],
  ['a step with two kinds', canary([{ setWeight: 20, pause: {} }])],
  ['a step of no kind', canary([{}])],
  ['a pause duration in days', canary([{ pause: { duration: '1d' } }])],
  ['an analysis step naming no template', canary([{ analysis: { templateName: 'missing' } }])],
  ['maxSurge not a count or a percentage', canary([{ setWeight: 20 }], { maxSurge: 'half' })],
  ['maxUnavailable 120%', canary([{ setWeight: 20 }], { maxUnavailable: '120%' })],
  ['canary under RollingUpdate', { strategy: { type: 'RollingUpdate', canary: { steps: [] } } }],
  ['two analyses of one name', { analysis: [analysis, analysis] }],
  [
    'a prometheus address without a scheme',
    { analysis: [{ ...analysis, prometheus: { address: 'p:9090', query: 'up' } }] },
  ],
  ['count 0', { analysis: [{ ...analysis, count: 0 }] }],
  ['failureLimit -1', { analysis: [{ ...analysis, failureLimit: -1 }] }],
  ['interval not a duration', { analysis: [{ ...analysis, interval: 'often' }] }],
  ['tls.secretName not a DNS subdomain', { tls: { secretName: 'Web_TLS' } }],
  ['ingress without a host', { service: { port: 80 }, ingress: {} }],
  ['ingress with an IP for host', { service: { port: 80 }, ingress: { host: '10.0.0.1' } }],
  ['ingress.tls without spec.tls', { service: { port: 80 }, ingress: { host: 'a.example.com', tls: true } }],
  ['a toleration operator Near', { tolerations: [{ key: 'a', operator: 'Near' }] }],
  ['a toleration effect Sometimes', { tolerations: [{ key: 'a', effect: 'Sometimes' }] }],
  ['a nodeSelector key with a space', { nodeSelector: { 'Bad Key': 'ssd' } }],
  ['a priorityClassName with an underscore', { priorityClassName: 'Bad_Name' }],
];
const issue34Case = ([what, spec]: [string, Record<string, unknown>]): Case => ({
  what: `POST ${what}`,
  request: (ns) => ({
    method: 'POST',
    path: `${nginxes(ns)}?dryRun=All`,
    contentType: 'application/json',
    body: manifest('issue-34', { spec: { replicas: 1, ...spec } }),
  }),
});
const issue34Fields = issue34Specs.map(issue34Case);

// Issue 46's traffic routing, each bad in one way: created, and merged into `keep` (dry runs).
const issue46Fields: Case[] = ISSUE_46_BAD_SPECS.flatMap(([what, spec]) => [
  issue34Case([what, spec]),
  {
    what: `PATCH ${what}`,
    request: (ns) => ({
      method: 'PATCH',
      path: `${nginxes(ns)}/keep?dryRun=All`,
      contentType: 'application/merge-patch+json',
      body: JSON.stringify({ spec }),
    }),
  },
]);

async function sideBySide(cases: Case[]) {
  const rows: { what: string; kube: Answer; ours: Answer }[] = [];
  for (const { what, request } of cases) {
    const theirs = await send(kube, request(kube.namespace, ours.namespace));
    const mine = await send(ours, request(ours.namespace, kube.namespace));
    rows.push({ what, kube: theirs, ours: mine });
  }
  const show = (a: Answer) =>
    `${a.code} ${a.reason ?? a.kind ?? ''}${a.items.length ? ` [${a.items.join(',')}]` : ''}`;
  console.log(rows.map((r) => `| ${r.what} | ${show(r.kube)} | ${show(r.ours)} |`).join('\n'));
  for (const row of rows)
    if (row.what === 'DeleteCollection of every namespace')
      // kube-apiserver serves no such path: its 404 is plain text, ours a Status.
      expect(row.ours.code, row.what).toBe(row.kube.code);
    else expect(row.ours, row.what).toEqual(row.kube);
  return new Map(rows.map((row) => [row.what, row.kube]));
}

describe('bad input, as kube-apiserver answers it', () => {
  it('content types and bodies', async () => {
    const answers = await sideBySide(writes);
    expect(answers.get('POST without a Content-Type')!.code).toBe(201);
    expect(answers.get('PATCH without a Content-Type')!.code).toBe(415);
  });

  it('protobuf, which custom resources do not speak', async () => {
    const answers = await sideBySide(protobuf);
    expect(answers.get('GET asking for protobuf only')!.code).toBe(406);
    expect(answers.get('GET asking for protobuf or JSON')!.kind).toBe('Nginx');
  });

  it("issue 34's fields, each bad in one way: the same 422 and causes", async () => {
    const answers = await sideBySide(issue34Fields);
    for (const [what, answer] of answers) expect(answer.code, what).toBe(422);
  });

  it("issue 46's traffic routing, each bad in one way, created and merge-patched: the same 422 and causes", async () => {
    const answers = await sideBySide(issue46Fields);
    for (const [what, answer] of answers) expect(answer.code, what).toBe(422);
  });

  /** A spec only our API refuses (a rule no CRD can state): created by kube-apiserver, a 422 naming `field` by ours. */
  async function refusedByOursAlone(what: string, spec: Record<string, unknown>, field: string) {
    const { request } = issue34Case([what, spec]);
    expect((await send(kube, request(kube.namespace, ours.namespace))).code).toBe(201);
    expect(await send(ours, request(ours.namespace, kube.namespace))).toEqual({
      code: 422,
      reason: 'Invalid',
      kind: 'Status',
      items: [],
      causes: [`FieldValueInvalid ${field}`],
    });
  }

  it('a header route regex that does not compile: refused by our API alone (as a successCondition)', () =>
    refusedByOursAlone(
      'an uncompilable regex',
      UNCOMPILABLE_REGEX,
      'spec.strategy.canary.steps[0].setHeaderRoute.match[0].headerValue.regex',
    ));

  it('a successCondition that does not parse: refused by our API alone (docs/analysis.md: no CRD rule can parse it)', () =>
    refusedByOursAlone(
      'a successCondition that does not parse',
      { analysis: [{ ...analysis, successCondition: 'result <' }] },
      'spec.analysis[0].successCondition',
    ));

  it('methods no route serves', async () => {
    const answers = await sideBySide(methods);
    expect(answers.get('PUT to the collection')!.code).toBe(400); // "name must be provided"
    expect(answers.get('DELETE the status subresource')!.code).toBe(405);
  });

  it('DeleteCollection: selectors, a dry run, a limited caller; nothing half-deleted, one change record each', async () => {
    const answers = await sideBySide(collectionDeletes);
    expect(answers.get('DeleteCollection by label selector')).toMatchObject({
      code: 200,
      items: ['swept-2'],
    });
    for (const server of [kube, ours]) {
      const left = await send(server, { method: 'GET', path: nginxes(server.namespace) });
      expect(left.items, server.name).toEqual(expect.arrayContaining(['keep']));
      expect(
        left.items.filter((name) => name.startsWith('swept')),
        server.name,
      ).toEqual([]);
    }
    // The audit writer stores in batches: the records come within a moment.
    const deleted = await waitFor('a change record for each Nginx deleted', async () => {
      const changes = (await (
        await cp.as('admin')(
          `/controlplane/v1/audit/changes?namespace=${ours.namespace}&verb=deletecollection`,
        )
      ).json()) as { items: { name: string; code: number; actor: string }[] };
      const names = changes.items.filter((c) => c.code === 200).map((c) => c.name);
      return names.length >= 2 && names.sort();
    });
    expect(deleted).toEqual(['swept-1', 'swept-2']);
  });
});
