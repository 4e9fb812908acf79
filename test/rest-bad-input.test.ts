// Bad input on every write path of the REST API: hand-picked cases plus seeded random mutations of valid
// objects, at least 500 requests. Each must get a 4xx Kubernetes Status that names what is wrong, nothing may be
// created or changed, and the server must keep serving.
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from './support/kubectl.js';
import { TOKENS, nginxManifest, startControlPlane, type ControlPlane } from './support/control-plane.js';
import { errorLines } from './support/log-lines.js';
import { uniqueName } from './support/wait.js';
import {
  ANALYSIS_TEMPLATE,
  ISSUE_46_BAD_SPECS,
  UNCOMPILABLE_REGEX,
  canaryStrategy,
} from './support/canary-specs.js';

interface BadRequest {
  what: string;
  method: 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'GET';
  /** Path after /apis/mycompany.com/v1/namespaces/. */
  path: string;
  contentType?: string;
  body?: string;
  /** A field (or parameter) the answer must name; with several, any one of them. */
  names?: string | string[];
  /** The status code it must get, when one is certain (otherwise any 4xx). */
  code?: number;
}

const NS = uniqueName('bad-input');
const VICTIM = 'victim';
let cp: ControlPlane;
let victimVersion = '';

beforeAll(async () => {
  await kubectl('create', 'namespace', NS);
  cp = await startControlPlane();
  const created = await cp.as('admin')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(nginxManifest(VICTIM, 0)),
  });
  expect(created.status).toBe(201);
  victimVersion = ((await created.json()) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
});
afterAll(async () => {
  await cp?.stop();
  await kubectl('delete', 'namespace', NS, '--wait=false').catch(() => {});
});

/** A small seeded generator, so a failing mutation can be reproduced from the test's output. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { next, pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]! };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- mutants put anything anywhere
type Manifest = Record<string, any>;
/** `m[key]` as an object, replacing whatever non-object an earlier mutation left there. */
const objectAt = (m: Manifest, key: string): Manifest =>
  typeof m[key] === 'object' && m[key] !== null && !Array.isArray(m[key]) ? m[key] : (m[key] = {});
/** Mutations that each make a valid Nginx invalid, and stay invalid whatever else is changed after them. */
const MUTATIONS: { names: string; apply: (m: Manifest, r: ReturnType<typeof random>) => void }[] = [
  {
    names: 'spec.replicas',
    apply: (m, r) =>
      (objectAt(m, 'spec').replicas = r.pick([
        -1,
        -1000,
        1001,
        1e9,
        1.5,
        0.1,
        'two',
        '3',
        true,
        null,
        [],
        {},
      ])),
  },
  {
    names: 'spec.image',
    apply: (m, r) =>
      (objectAt(m, 'spec').image = r.pick(['', 7, false, ['nginx'], { name: 'x' }, 'x'.repeat(600)])),
  },
  {
    names: 'spec.config',
    apply: (m, r) =>
      (objectAt(m, 'spec').config = r.pick([
        'server {',
        'server { listen 80 }',
        '}',
        'a "b;',
        42,
        'x'.repeat(300_000),
      ])),
  },
  { names: 'spec.port', apply: (m, r) => (objectAt(m, 'spec').port = r.pick([0, 65536, '80', -1, 8.5])) },
  {
    names: 'spec.strategy',
    apply: (m, r) =>
      (objectAt(m, 'spec').strategy = r.pick([
        { type: 'Shadow' },
        { rollingUpdate: { maxSurge: 'x' } },
        { rollingUpdate: { maxUnavailable: '101%' } },
        { type: 'Recreate', rollingUpdate: { maxSurge: 1 } },
        'fast',
      ])),
  },
  { names: 'spec', apply: (m) => delete m.spec },
  { names: 'spec', apply: (m, r) => (m.spec = r.pick(['replicas: 2', 2, [], null])) },
  {
    names: 'apiVersion',
    apply: (m, r) => (m.apiVersion = r.pick(['apps/v1', 'v1', 'mycompany.com/v2', '', 3])),
  },
  { names: 'kind', apply: (m, r) => (m.kind = r.pick(['Deployment', 'nginx', 'NGINX', '', null])) },
  {
    names: 'metadata.name',
    apply: (m, r) =>
      (objectAt(m, 'metadata').name = r.pick([
        'Upper',
        'under_score',
        '-dash',
        'dot.ted',
        'a'.repeat(64),
        'ünï',
        'sp ace',
        42,
      ])),
  },
  {
    names: 'spec.',
    apply: (m, r) => (objectAt(m, 'spec')[r.pick(['replica', 'Replicas', 'size', 'image2'])] = 1),
  },
  { names: 'metadata', apply: (m, r) => (m.metadata = r.pick(['name: x', 7, []])) },
  { names: 'extra', apply: (m) => (m.extra = { nested: true }) },
];

function mutant(seed: number): { body: Manifest; names: string[] } {
  const r = random(seed);
  const body: Manifest = nginxManifest(`mutant-${seed}`, 1 + Math.floor(r.next() * 5), {});
  const names: string[] = [];
  const count = 1 + Math.floor(r.next() * 3);
  for (let i = 0; i < count; i++) {
    const mutation = r.pick(MUTATIONS);
    mutation.apply(body, r);
    names.push(mutation.names);
  }
  return { body, names };
}

const collection = `${NS}/nginxes`;
const victim = `${NS}/nginxes/${VICTIM}`;
const JSON_TYPE = 'application/json';
const MERGE = 'application/merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';

function handPicked(): BadRequest[] {
  const valid = JSON.stringify(nginxManifest('fine', 1));
  const cases: BadRequest[] = [];
  /** A spec the schema or its rules refuse: a 422 naming `names`, created as `name` and merged into the victim. */
  const badSpec = (name: string, spec: Record<string, unknown>, names: string): BadRequest[] => [
    {
      what: `create ${name} with spec ${JSON.stringify(spec).slice(0, 100)}`,
      method: 'POST',
      path: collection,
      contentType: JSON_TYPE,
      body: JSON.stringify(nginxManifest(name, 1, { spec: { replicas: 1, ...spec } })),
      names,
      code: 422,
    },
    {
      what: `merge patch ${JSON.stringify(spec).slice(0, 100)}`,
      method: 'PATCH',
      path: victim,
      contentType: MERGE,
      body: JSON.stringify({ spec }),
      names,
      code: 422,
    },
  ];
  const malformedJson = [
    '',
    '{',
    '{"apiVersion":',
    'nul',
    '[1,2',
    '{"a":1,}',
    "{'a':1}",
    '\u0000\u0001',
    'NaN',
    '{"spec":{"replicas":01}}',
  ];
  for (const body of malformedJson) {
    cases.push({
      what: `malformed JSON ${JSON.stringify(body)}`,
      method: 'POST',
      path: collection,
      contentType: JSON_TYPE,
      body,
    });
    cases.push({
      what: `malformed merge patch ${JSON.stringify(body)}`,
      method: 'PATCH',
      path: victim,
      contentType: MERGE,
      body,
    });
  }
  for (const body of ['a: b: c', 'spec: [unclosed', '\tspec:\n\t\treplicas: 1', 'key: "open', '- - - :']) {
    cases.push({
      what: `malformed YAML ${JSON.stringify(body)}`,
      method: 'POST',
      path: collection,
      contentType: 'application/yaml',
      body,
    });
    cases.push({
      what: `malformed apply ${JSON.stringify(body)}`,
      method: 'PATCH',
      path: `${victim}?fieldManager=t`,
      contentType: APPLY,
      body,
    });
  }
  for (const body of ['[]', '"text"', '42', 'null', 'true'])
    cases.push({
      what: `a body that is not an object: ${body}`,
      method: 'POST',
      path: collection,
      contentType: JSON_TYPE,
      body,
    });
  for (const type of [
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/strategic-merge-patch+json',
    '',
  ])
    cases.push({
      what: `content type ${type || '(none)'}`,
      method: 'PATCH',
      path: victim,
      contentType: type,
      body: '{"spec":{"replicas":1}}',
    });
  cases.push({
    what: 'POST as merge patch',
    method: 'POST',
    path: collection,
    contentType: MERGE,
    body: valid,
  });
  cases.push({
    what: 'name differs from the path',
    method: 'PUT',
    path: victim,
    contentType: JSON_TYPE,
    body: valid,
    names: 'metadata.name',
  });
  cases.push({
    what: 'namespace differs from the path',
    method: 'POST',
    path: collection,
    contentType: JSON_TYPE,
    body: JSON.stringify({
      ...nginxManifest('elsewhere', 1),
      metadata: { name: 'elsewhere', namespace: 'kube-system' },
    }),
    names: 'metadata.namespace',
  });
  cases.push({
    what: 'no name and no generateName',
    method: 'POST',
    path: collection,
    contentType: JSON_TYPE,
    body: JSON.stringify({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: {},
      spec: { replicas: 1 },
    }),
    names: 'metadata.name',
  });
  cases.push({
    what: 'oversized body',
    method: 'POST',
    path: collection,
    contentType: JSON_TYPE,
    body: JSON.stringify({
      ...nginxManifest('big', 1),
      metadata: { name: 'big', annotations: { a: 'x'.repeat(1_200_000) } },
    }),
  });
  for (const segment of [
    '..',
    '%2E%2E',
    'a%2Fb',
    '%00',
    'a%0Ab',
    'A',
    'x'.repeat(300),
    '%zz',
    '%E2%80%AE',
    'a%20b',
    '-a',
  ])
    for (const [method, path] of [
      ['GET', `${segment}/nginxes`],
      ['POST', `${segment}/nginxes`],
      ['GET', `${NS}/nginxes/${segment}`],
      ['PUT', `${NS}/nginxes/${segment}`],
      ['PATCH', `${NS}/nginxes/${segment}`],
      ['DELETE', `${NS}/nginxes/${segment}`],
    ] as const)
      cases.push({
        what: `path segment ${segment} (${method} ${path})`,
        method,
        path,
        contentType: JSON_TYPE,
        body: method === 'GET' || method === 'DELETE' ? undefined : valid,
      });
  cases.push({ what: 'unknown subresource', method: 'GET', path: `${victim}/logs` });
  cases.push({
    what: 'unknown subresource write',
    method: 'PUT',
    path: `${victim}/exec`,
    contentType: JSON_TYPE,
    body: valid,
  });
  for (const patch of [
    '{}',
    '[{"op":"jump","path":"/spec"}]',
    '[{"op":"replace"}]',
    '[{"path":"/spec/replicas","value":1}]',
    '[]',
    '[1]',
  ])
    cases.push({
      what: `JSON patch ${patch}`,
      method: 'PATCH',
      path: victim,
      contentType: JSON_PATCH,
      body: patch,
    });
  for (const [value, names] of [
    [-1, 'spec.replicas'],
    ['3', 'spec.replicas'],
    [2.5, 'spec.replicas'],
    [5000, 'spec.replicas'],
  ] as const)
    cases.push({
      what: `JSON patch replicas ${JSON.stringify(value)}`,
      method: 'PATCH',
      path: victim,
      contentType: JSON_PATCH,
      body: JSON.stringify([{ op: 'replace', path: '/spec/replicas', value }]),
      names,
    });
  for (const value of ['server {', 'server { listen 80 }', 7])
    cases.push({
      what: `JSON patch config ${JSON.stringify(value)}`,
      method: 'PATCH',
      path: victim,
      contentType: JSON_PATCH,
      body: JSON.stringify([{ op: 'add', path: '/spec/config', value }]),
      names: 'spec.config',
    });
  // Fields of the pod template the schema or its rules refuse: a 422 naming the field, on create and on patch.
  for (const [spec, names] of [
    [{ priorityClassName: 'Bad_Name' }, 'spec.priorityClassName'],
    [{ priorityClassName: 'a'.repeat(254) }, 'spec.priorityClassName'],
    [{ nodeSelector: { disktype: 'x'.repeat(64) } }, 'spec.nodeSelector.disktype'],
    [{ nodeSelector: { 'Bad Key': 'ssd' } }, 'spec.nodeSelector'],
    [{ nodeSelector: ['disktype=ssd'] }, 'spec.nodeSelector'],
    [{ tolerations: [{ key: 'a', operator: 'Near' }] }, 'spec.tolerations[0].operator'],
    [{ tolerations: [{ key: 'a', operator: 'Exists', value: 'b' }] }, 'spec.tolerations[0]'],
    [
      { tolerations: [{ key: 'a', effect: 'NoExecute', tolerationSeconds: -1 }] },
      'spec.tolerations[0].tolerationSeconds',
    ],
    [
      {
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'a', operator: 'Near' }] }],
            },
          },
        },
      },
      'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator',
    ],
    [
      { topologySpreadConstraints: [{ maxSkew: 0, topologyKey: 'k', whenUnsatisfiable: 'ScheduleAnyway' }] },
      'spec.topologySpreadConstraints[0].maxSkew',
    ],
    [
      { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'k', whenUnsatisfiable: 'Sometimes' }] },
      'spec.topologySpreadConstraints[0].whenUnsatisfiable',
    ],
  ] as const) {
    cases.push(...badSpec('fine', spec, names));
  }
  for (const [query, names] of [
    ['fieldValidation=Bogus', 'fieldValidation'],
    ['dryRun=Some', 'dryRun'],
    ['fieldManager=%00evil', 'fieldManager'],
    ['fieldValidation=Strict&fieldValidation=Warn', 'fieldValidation'],
  ] as const)
    cases.push({
      what: `query ${query}`,
      method: 'PATCH',
      path: `${victim}?${query}`,
      contentType: MERGE,
      body: '{"spec":{"replicas":1}}',
      names,
    });
  for (const [query, names] of [
    ['limit=-1', 'limit'],
    ['limit=ten', 'limit'],
    ['watch=maybe', 'watch'],
    ['timeoutSeconds=1.5', 'timeoutSeconds'],
    ['resourceVersionMatch=Newest', 'resourceVersionMatch'],
    ['labelSelector=a%20in%20(b&resourceVersion=0', 'labelSelector'],
    ['fieldSelector=spec.replicas%3D1&resourceVersion=0', 'fieldSelector'],
  ] as const)
    cases.push({ what: `list query ${query}`, method: 'GET', path: `${collection}?${query}`, names });
  for (const [body, names] of [
    ['{"propagationPolicy":"Sometimes"}', 'propagationPolicy'],
    ['{"preconditions":"uid"}', 'preconditions'],
    ['{"gracePeriodSeconds":-5}', 'gracePeriodSeconds'],
    ['[1]', undefined],
    ['{', undefined],
  ] as const)
    cases.push({
      what: `DeleteOptions ${body}`,
      method: 'DELETE',
      path: victim,
      contentType: JSON_TYPE,
      body,
      names,
    });
  cases.push({
    what: 'propagationPolicy query',
    method: 'DELETE',
    path: `${victim}?propagationPolicy=Never`,
    names: 'propagationPolicy',
  });
  for (const replicas of [-1, 'x', 1001])
    cases.push({
      what: `scale to ${replicas}`,
      method: 'PATCH',
      path: `${victim}/scale`,
      contentType: MERGE,
      body: JSON.stringify({ spec: { replicas } }),
      names: 'spec.replicas',
    });
  cases.push({
    what: 'Scale of the wrong kind',
    method: 'PUT',
    path: `${victim}/scale`,
    contentType: JSON_TYPE,
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: VICTIM },
      spec: { replicas: 1 },
    }),
    names: 'kind',
  });
  // spec.tls and spec.ingress (issue 34): each refused at the field, created or merged into the victim.
  const service = { port: 80 };
  for (const [spec, names] of [
    [{ tls: { secretName: 'Web_TLS' } }, 'spec.tls.secretName'],
    [{ tls: {} }, 'spec.tls.secretName'],
    [{ tls: { secretName: 'web-tls' }, port: 443 }, 'spec.port'],
    [{ service, ingress: { host: 'Web.Example.com' } }, 'spec.ingress.host'],
    [{ service, ingress: { host: '*.*.example.com' } }, 'spec.ingress.host'],
    [{ service, ingress: { host: '10.0.0.1' } }, 'spec.ingress.host'],
    [{ service, ingress: {} }, 'spec.ingress.host'],
    [{ service, ingress: { host: 'a.example.com', className: 'Bad Class' } }, 'spec.ingress.className'],
    [{ service, ingress: { host: 'a.example.com', path: 'no-slash' } }, 'spec.ingress.path'],
    [{ service, ingress: { host: 'a.example.com', tls: true } }, 'spec.ingress.tls'],
    [{ ingress: { host: 'a.example.com' } }, 'spec.ingress'],
  ] as const) {
    cases.push({
      what: `created with ${JSON.stringify(spec)}`,
      method: 'POST',
      path: collection,
      contentType: JSON_TYPE,
      body: JSON.stringify(nginxManifest('tls-bad', 1, { spec: { replicas: 1, ...spec } })),
      names,
    });
    cases.push({
      what: `merge patch ${JSON.stringify(spec)}`,
      method: 'PATCH',
      path: victim,
      contentType: MERGE,
      body: JSON.stringify({ spec }),
      names,
    });
  }
  // The canary strategy and spec.analysis (issue 34): a 422 naming the field, created or merged into the victim.
  const [analysis, canary] = [ANALYSIS_TEMPLATE, canaryStrategy];
  const step0 = 'spec.strategy.canary.steps[0]';
  for (const [spec, names] of [
    [canary('setWeight: 20'), 'spec.strategy.canary.steps'],
    [canary([{ setWeight: '20' }]), `${step0}.setWeight`],
    [canary([{ setWeight: 101 }]), `${step0}.setWeight`],
    [canary([{ setWeight: -1 }]), `${step0}.setWeight`],
    [canary([{ setWeight: 20, pause: {} }]), step0],
    [canary([{}]), step0],
    [canary([{ jump: 3 }]), step0],
    [canary([{ pause: { duration: '1d' } }]), `${step0}.pause.duration`],
    [canary([{ pause: { duration: 60 } }]), `${step0}.pause.duration`],
    [canary([{ analysis: { templateName: 'missing' } }]), 'spec.strategy.canary.steps'],
    [canary([{ setWeight: 20 }], { maxSurge: 'half' }), 'spec.strategy.canary.maxSurge'],
    [canary([{ setWeight: 20 }], { maxUnavailable: '120%' }), 'spec.strategy.canary.maxUnavailable'],
    [canary([{ setWeight: 20 }], { maxUnavailable: -1 }), 'spec.strategy.canary.maxUnavailable'],
    [{ strategy: { type: 'RollingUpdate', canary: { steps: [] } } }, 'spec.strategy'],
    [{ strategy: { type: 'Blue' } }, 'spec.strategy.type'],
    [{ analysis: [analysis, analysis] }, 'spec.analysis[1]'],
    [{ analysis: [{ ...analysis, successCondition: 'result <' }] }, 'spec.analysis[0].successCondition'],
    [
      { analysis: [{ ...analysis, prometheus: { address: 'prometheus:9090', query: 'up' } }] },
      'spec.analysis[0].prometheus.address',
    ],
    [
      { analysis: [{ ...analysis, prometheus: { address: 'ftp://p:21', query: 'up' } }] },
      'spec.analysis[0].prometheus.address',
    ],
    [{ analysis: [{ ...analysis, interval: 'often' }] }, 'spec.analysis[0].interval'],
    [{ analysis: [{ ...analysis, count: 0 }] }, 'spec.analysis[0].count'],
    [{ analysis: [{ ...analysis, count: 'four' }] }, 'spec.analysis[0].count'],
    [{ analysis: [{ ...analysis, failureLimit: -1 }] }, 'spec.analysis[0].failureLimit'],
    [{ analysis: [{ ...analysis, name: 'Error Rate' }] }, 'spec.analysis[0].name'],
    [{ analysis: { name: 'error-rate' } }, 'spec.analysis'],
    [{ rollbackOnFailure: 'yes' }, 'spec.rollbackOnFailure'],
  ] as const) {
    cases.push(...badSpec('canary-bad', spec, names));
  }
  // Issue 46's traffic routing: the same, and a header regex that does not compile (our rules alone say so).
  for (const [, spec, field] of ISSUE_46_BAD_SPECS) cases.push(...badSpec('routing-bad', spec, field));
  cases.push(
    ...badSpec(
      'routing-bad',
      UNCOMPILABLE_REGEX,
      'spec.strategy.canary.steps[0].setHeaderRoute.match[0].headerValue.regex',
    ),
  );
  return cases;
}

/** Unknown fields are refused only under strict field validation (the API server's default is Warn). */
const STRICT = 'fieldValidation=Strict';

function mutants(count: number): BadRequest[] {
  const cases: BadRequest[] = [];
  for (let seed = 1; cases.length < count; seed++) {
    const { body, names } = mutant(seed);
    // Later mutations may overwrite earlier ones: the answer must name at least one of the fields touched.
    const fields = names.map((n) => (n === 'spec.' ? 'spec' : n));
    const kind = seed % 3;
    if (kind === 0)
      cases.push({
        what: `mutant ${seed} created`,
        method: 'POST',
        path: `${collection}?${STRICT}`,
        contentType: JSON_TYPE,
        body: JSON.stringify(body),
        names: fields,
      });
    else if (kind === 1) {
      body.metadata = {
        ...(typeof body.metadata === 'object' && !Array.isArray(body.metadata) ? body.metadata : {}),
        name: VICTIM,
      };
      // With the name put back, what is left may only be the missing resourceVersion an update needs.
      cases.push({
        what: `mutant ${seed} replacing`,
        method: 'PUT',
        path: `${victim}?${STRICT}`,
        contentType: JSON_TYPE,
        body: JSON.stringify(body),
        names: [...fields, 'metadata.resourceVersion'],
      });
    } else {
      const patch: Manifest = { spec: body.spec === undefined ? { replicas: -seed } : body.spec };
      if (
        typeof patch.spec !== 'object' ||
        patch.spec === null ||
        Array.isArray(patch.spec) ||
        !Object.keys(patch.spec).length
      )
        patch.spec = { replicas: 'many' };
      else if (!names.some((n) => n.startsWith('spec'))) patch.spec.replicas = -seed;
      cases.push({
        what: `mutant ${seed} as a merge patch ${JSON.stringify(patch)}`,
        method: 'PATCH',
        path: `${victim}?${STRICT}`,
        contentType: MERGE,
        body: JSON.stringify(patch),
        names: 'spec',
      });
    }
  }
  return cases;
}

/** Sends a request exactly as written: fetch would normalise `..` and `%2E%2E` away before they left. */
function rawRequest(url: string, c: BadRequest): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      {
        hostname,
        port,
        method: c.method,
        path: `/apis/mycompany.com/v1/namespaces/${c.path}`,
        headers: {
          Authorization: `Bearer ${TOKENS.admin}`,
          ...(c.contentType === undefined ? {} : { 'Content-Type': c.contentType }),
          ...(c.body === undefined ? {} : { 'Content-Length': Buffer.byteLength(c.body) }),
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
      },
    );
    request.on('error', reject);
    request.end(c.body);
  });
}

describe('bad input on the REST API', () => {
  it('answers 4xx Status naming the problem to 500+ bad requests, changes nothing, and keeps serving', async () => {
    const cases = [...handPicked()];
    cases.push(...mutants(Math.max(0, 520 - cases.length)));
    expect(cases.length).toBeGreaterThanOrEqual(500);

    const failures: string[] = [];
    const send = async (c: BadRequest) => {
      const { status: code, text } = await rawRequest(cp.url, c);
      let status: { kind?: string; code?: number; message?: string; details?: unknown } = {};
      try {
        status = JSON.parse(text);
      } catch {
        /* reported below */
      }
      const problems: string[] = [];
      if (code < 400 || code >= 500 || (c.code !== undefined && code !== c.code))
        problems.push(`HTTP ${code}`);
      if (status.kind !== 'Status' || status.code !== code) problems.push('not a Status');
      if (!status.message) problems.push('no message');
      const names = c.names === undefined ? [] : [c.names].flat();
      if (names.length && !names.some((name) => text.includes(name)))
        problems.push(`does not name ${names.join(' or ')}`);
      if (problems.length) failures.push(`${c.what}: ${problems.join(', ')} — ${text.slice(0, 300)}`);
    };
    for (let i = 0; i < cases.length; i += 25) await Promise.all(cases.slice(i, i + 25).map(send));
    expect(failures).toEqual([]);

    // Nothing was created or changed.
    const list = (await (
      await cp.as('viewer')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes`)
    ).json()) as {
      items: { metadata: { name: string; resourceVersion: string }; spec: unknown }[];
    };
    expect(list.items.map((n) => n.metadata.name)).toEqual([VICTIM]);
    expect(list.items[0]!.metadata.resourceVersion).toBe(victimVersion);
    expect(list.items[0]!.spec).toEqual({ replicas: 0, image: 'nginx:latest' });

    // Still serving, and a good request still works.
    expect((await fetch(`${cp.url}/healthz`)).status).toBe(200);
    const good = await cp.as('editor')(`/apis/mycompany.com/v1/namespaces/${NS}/nginxes/${VICTIM}`, {
      method: 'PATCH',
      headers: { 'Content-Type': MERGE },
      body: '{"spec":{"replicas":1}}',
    });
    expect(good.status).toBe(200);
    // Read with errorLines: the app logs JSON, where a /\bERROR\b/ scrape never matched (test/log-sentinels.test.ts).
    expect(errorLines(cp.output()).filter((line) => /request failed|internal error/.test(line))).toEqual([]);
    console.log(`bad input: ${cases.length} requests, all answered 4xx with a Status`);
  }, 180_000);
});
