// Bad bodies where rest-bad-input.test.ts does not reach: the /status subresource, the self reviews (kubectl auth
// can-i / whoami), YAML alias bombs and deeply nested JSON and YAML, and a watch from an expired resourceVersion
// (answered as kube-apiserver answers it, compared with its own answer in the same test). Each bad request must
// get a clear 4xx Kubernetes Status, leave the Nginx as it was, and the app must keep serving.
import { kubeApiServer } from './support/conformance.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectl } from './support/kubectl.js';
import { nginxManifest, startControlPlane, type ControlPlane } from './support/control-plane.js';
import { errorLines } from './support/log-lines.js';
import { uniqueName } from './support/wait.js';

const NS = uniqueName('bad-bodies');
const VICTIM = 'victim';
const GROUP = '/apis/mycompany.com/v1';
const victimPath = `${GROUP}/namespaces/${NS}/nginxes/${VICTIM}`;
const ACCESS_REVIEW = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SELF_REVIEW = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
let cp: ControlPlane;

interface Victim {
  metadata: { name: string; uid: string; resourceVersion: string };
  spec: unknown;
  status?: unknown;
}
let before: Victim;

beforeAll(async () => {
  await kubectl('create', 'namespace', NS);
  cp = await startControlPlane();
  const created = await cp.as('admin')(`${GROUP}/namespaces/${NS}/nginxes`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(nginxManifest(VICTIM, 1)),
  });
  expect(created.status).toBe(201);
  // A status of its own, written through the app, so a half-written bad one would show.
  const withStatus = await cp.as('admin')(`${victimPath}/status`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({ status: { replicas: 1, readyReplicas: 1 } }),
  });
  expect(withStatus.status, await withStatus.clone().text()).toBe(200);
  before = await readVictim();
});
afterAll(async () => {
  await cp?.stop();
  await kubectl('delete', 'namespace', NS, '--wait=false').catch(() => {});
});

/** The Nginx as kube-apiserver has it (read with kubectl, not through the app). */
async function readVictim(): Promise<Victim> {
  return JSON.parse(await kubectl('get', 'nginx', VICTIM, '-n', NS, '-o', 'json')) as Victim;
}

interface Answer {
  status: number;
  text: string;
}

async function send(
  method: string,
  path: string,
  contentType: string | undefined,
  body: string | Buffer | undefined,
): Promise<Answer> {
  const response = await cp.as('admin')(path, {
    method,
    headers: contentType === undefined ? {} : { 'Content-Type': contentType },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : new Uint8Array(body) }),
  });
  return { status: response.status, text: await response.text() };
}

/** A 4xx answer that is a Kubernetes Status saying so: its code the HTTP status, with a message. */
function expectClearRefusal(answer: Answer, what: string, codes: number[] = []): void {
  const context = `${what}: HTTP ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, context).toBeGreaterThanOrEqual(400);
  expect(answer.status, context).toBeLessThan(500);
  if (codes.length) expect(codes, context).toContain(answer.status);
  const status = JSON.parse(answer.text) as Record<string, unknown>;
  expect(status, context).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: answer.status,
  });
  expect(typeof status.message === 'string' && status.message.length > 0, context).toBe(true);
}

/** The Nginx is exactly as it was, and the app still answers a good request. */
async function expectUnchangedAndServing(): Promise<void> {
  const now = await readVictim();
  expect(now.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  expect(now.spec).toEqual(before.spec);
  expect(now.status).toEqual(before.status);
  const list = await cp.as('viewer')(`${GROUP}/namespaces/${NS}/nginxes`);
  expect(list.status).toBe(200);
  const names = ((await list.json()) as { items: Victim[] }).items.map((n) => n.metadata.name);
  expect(names).toEqual([VICTIM]);
}

/** A YAML document whose aliases expand to 9^depth strings ("billion laughs" at depth 9). */
function aliasBomb(depth = 9): string {
  const lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i <= depth; i++)
    lines.push(`a${i}: &a${i} [${Array.from({ length: 9 }, () => `*a${i - 1}`).join(',')}]`);
  return lines.join('\n') + '\n';
}

/** `{"spec": {"x": [[[…]]]}}` style nesting, `depth` deep, inside an otherwise good manifest. */
function deepJson(name: string, depth: number): string {
  return `{"apiVersion":"mycompany.com/v1","kind":"Nginx","metadata":{"name":"${name}"},"spec":{"replicas":1,"x":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
}

function deepYaml(name: string, depth: number): string {
  return `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: ${name}\nspec:\n  replicas: 1\n  x: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
}

describe('bad bodies through the app against the cluster', () => {
  it('refuses bad /status bodies with a 4xx Status and leaves the Nginx as it was', async () => {
    const current = () => ({
      apiVersion: 'mycompany.com/v1',
      kind: 'Nginx',
      metadata: { name: VICTIM, resourceVersion: before.metadata.resourceVersion },
      spec: before.spec,
      status: { replicas: 7, readyReplicas: 7 },
    });
    const status = `${victimPath}/status`;
    const cases: [string, string, string | undefined, string, number[]?][] = [
      ['wrong kind', 'PUT', 'application/json', JSON.stringify({ ...current(), kind: 'Deployment' })],
      [
        'wrong apiVersion',
        'PUT',
        'application/json',
        JSON.stringify({ ...current(), apiVersion: 'apps/v1' }),
      ],
      [
        'other group version',
        'PUT',
        'application/json',
        JSON.stringify({ ...current(), apiVersion: 'mycompany.com/v2' }),
      ],
      ['no kind', 'PUT', 'application/json', JSON.stringify({ ...current(), kind: undefined })],
      [
        'name differs from the path',
        'PUT',
        'application/json',
        JSON.stringify({ ...current(), metadata: { ...current().metadata, name: 'someone-else' } }),
      ],
      [
        'namespace differs from the path',
        'PUT',
        'application/json',
        JSON.stringify({ ...current(), metadata: { ...current().metadata, namespace: 'kube-system' } }),
      ],
      [
        'merge patch naming another object',
        'PATCH',
        'application/merge-patch+json',
        JSON.stringify({ metadata: { name: 'someone-else' }, status: { replicas: 7 } }),
      ],
      ...['[]', '"status"', '42', 'null', 'true'].flatMap((body): [string, string, string, string][] => [
        [`non-object ${body} (PUT)`, 'PUT', 'application/json', body],
        [`non-object ${body} (merge patch)`, 'PATCH', 'application/merge-patch+json', body],
      ]),
      ['malformed JSON', 'PUT', 'application/json', '{"status":'],
      ['text/plain', 'PUT', 'text/plain', JSON.stringify(current())],
      [
        'oversized',
        'PUT',
        'application/json',
        JSON.stringify({ ...current(), status: { replicas: 7, note: 'x'.repeat(1_200_000) } }),
        [413],
      ],
      [
        'oversized merge patch',
        'PATCH',
        'application/merge-patch+json',
        JSON.stringify({ status: { note: 'x'.repeat(1_200_000) } }),
        [413],
      ],
      ['alias bomb', 'PUT', 'application/yaml', `${aliasBomb()}apiVersion: mycompany.com/v1\nkind: Nginx\n`],
      ['deeply nested', 'PUT', 'application/json', deepJson(VICTIM, 100_000)],
    ];
    for (const [what, method, type, body, codes] of cases)
      expectClearRefusal(await send(method, status, type, body), `status: ${what}`, codes);
    await expectUnchangedAndServing();

    // Positive control: the same path takes a good status write (then it is put back as it was).
    const good = await send('PUT', status, 'application/json', JSON.stringify(current()));
    expect(good.status, good.text).toBe(200);
    expect((JSON.parse(good.text) as Victim).status).toMatchObject({ replicas: 7 });
    const restored = await send(
      'PATCH',
      status,
      'application/merge-patch+json',
      JSON.stringify({ status: before.status }),
    );
    expect(restored.status, restored.text).toBe(200);
    before = await readVictim();
  });

  it('refuses bad self-review bodies (can-i, whoami) with a 4xx Status, and answers a good one', async () => {
    const accessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: {
        resourceAttributes: { namespace: NS, verb: 'get', group: 'mycompany.com', resource: 'nginxes' },
      },
    };
    const selfReview = { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' };
    for (const [path, good, otherKind] of [
      [ACCESS_REVIEW, accessReview, selfReview],
      [SELF_REVIEW, selfReview, accessReview],
    ] as const) {
      const cases: [string, string | undefined, string | Buffer, number[]?][] = [
        ['the other review kind', 'application/json', JSON.stringify(otherKind)],
        ['wrong kind', 'application/json', JSON.stringify({ ...good, kind: 'SubjectAccessReview' })],
        [
          'wrong apiVersion',
          'application/json',
          JSON.stringify({ ...good, apiVersion: 'authorization.k8s.io/v1beta2' }),
        ],
        ['no apiVersion', 'application/json', JSON.stringify({ ...good, apiVersion: undefined })],
        ...['[]', '"review"', '42', 'null', 'true'].map((body): [string, string, string] => [
          `non-object ${body}`,
          'application/json',
          body,
        ]),
        ['malformed JSON', 'application/json', '{"kind":'],
        ['empty', 'application/json', ''],
        ['malformed YAML', 'application/yaml', 'kind: [unclosed'],
        [
          'garbage protobuf',
          'application/vnd.kubernetes.protobuf',
          Buffer.from([0x6b, 0x38, 0x73, 0x00, 0xff, 0xff, 0xff]),
        ],
        ['a form', 'application/x-www-form-urlencoded', 'kind=SelfSubjectReview', [415]],
        [
          'oversized',
          'application/json',
          JSON.stringify({ ...good, metadata: { annotations: { a: 'x'.repeat(1_200_000) } } }),
          [413],
        ],
        [
          'alias bomb',
          'application/yaml',
          `${aliasBomb()}apiVersion: ${good.apiVersion}\nkind: ${good.kind}\n`,
        ],
        [
          'deeply nested JSON',
          'application/json',
          `{"apiVersion":"${good.apiVersion}","kind":"${good.kind}","spec":{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`,
        ],
        [
          'deeply nested YAML',
          'application/yaml',
          `apiVersion: ${good.apiVersion}\nkind: ${good.kind}\nspec:\n  x: ${'['.repeat(20_000)}${']'.repeat(20_000)}\n`,
        ],
      ];
      for (const [what, type, body, codes] of cases)
        expectClearRefusal(await send('POST', path, type, body), `${path}: ${what}`, codes);

      // Positive control: the good review is answered, so the refusals above were about their bodies.
      const answer = await send('POST', path, 'application/json', JSON.stringify(good));
      expect(answer.status, answer.text).toBe(201);
      expect(JSON.parse(answer.text)).toMatchObject({ kind: good.kind, status: expect.any(Object) });
    }
    await expectUnchangedAndServing();
  });

  it('refuses YAML alias bombs and deep nesting on every write path of an Nginx, and keeps serving', async () => {
    const collection = `${GROUP}/namespaces/${NS}/nginxes`;
    const manifestBomb = `${aliasBomb()}apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: bomb\nspec:\n  replicas: 1\n`;
    const cases: [string, string, string, string, string][] = [
      ['alias bomb create', 'POST', collection, 'application/yaml', manifestBomb],
      [
        'alias bomb replace',
        'PUT',
        victimPath,
        'application/yaml',
        manifestBomb.replace('name: bomb', `name: ${VICTIM}`),
      ],
      [
        'alias bomb apply',
        'PATCH',
        `${victimPath}?fieldManager=bomb`,
        'application/apply-patch+yaml',
        manifestBomb.replace('name: bomb', `name: ${VICTIM}`),
      ],
      [
        'alias bomb in spec.config',
        'POST',
        collection,
        'application/yaml',
        `${aliasBomb()}apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: bomb2\nspec:\n  replicas: 1\n  config: *a9\n`,
      ],
      ['deep JSON create', 'POST', collection, 'application/json', deepJson('deep', 100_000)],
      ['deep JSON (10 001 levels) create', 'POST', collection, 'application/json', deepJson('deep', 10_001)],
      ['deep JSON replace', 'PUT', victimPath, 'application/json', deepJson(VICTIM, 100_000)],
      [
        'deep merge patch',
        'PATCH',
        victimPath,
        'application/merge-patch+json',
        `{"spec":{"x":${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}}}`,
      ],
      [
        'deep JSON patch value',
        'PATCH',
        victimPath,
        'application/json-patch+json',
        `[{"op":"add","path":"/spec/x","value":${'['.repeat(100_000)}${']'.repeat(100_000)}}]`,
      ],
      ['deep YAML create', 'POST', collection, 'application/yaml', deepYaml('deep', 20_000)],
      [
        'deep YAML apply',
        'PATCH',
        `${victimPath}?fieldManager=deep`,
        'application/apply-patch+yaml',
        deepYaml(VICTIM, 20_000),
      ],
      [
        'deep block YAML create',
        'POST',
        collection,
        'application/yaml',
        `apiVersion: mycompany.com/v1\nkind: Nginx\nmetadata:\n  name: deep\nspec:\n  replicas: 1\n  x:\n${Array.from({ length: 2_000 }, (_, i) => `${' '.repeat(4 + i)}- `).join('\n')}1\n`,
      ],
    ];
    for (const [what, method, path, type, body] of cases) {
      expectClearRefusal(await send(method, path, type, body), what);
      // Still serving right after each (a crashed or wedged process would fail here, not later).
      expect((await fetch(`${cp.url}/healthz`)).status, `after ${what}`).toBe(200);
    }
    await expectUnchangedAndServing();
    for (const name of ['bomb', 'bomb2', 'deep'])
      expect((await cp.as('viewer')(`${collection}/${name}`)).status, name).toBe(404);
  });

  it('answers a watch from an expired resourceVersion as kube-apiserver does', async () => {
    const query = 'watch=1&resourceVersion=1&timeoutSeconds=5';
    const path = `${GROUP}/namespaces/${NS}/nginxes?${query}`;
    const ours = await cp.as('viewer')(path);
    const oursText = await ours.text();
    const theirs = await kubeApiServer(NS).fetch(path);
    const theirsText = await theirs.text();

    // kube-apiserver's answer is the standard: 410 Gone, as an HTTP status or as an ERROR event carrying the
    // Status (which one depends on whether its watch cache serves it). The current version in the message moves.
    const normalise = (text: string) => text.replace(/\(\d+\)/g, '(N)').trim();
    expect(ours.status, oursText).toBe(theirs.status);
    expect(ours.headers.get('content-type')).toBe(theirs.headers.get('content-type'));
    expect(normalise(oursText)).toBe(normalise(theirsText));
    const gone =
      theirs.status === 410 ? JSON.parse(theirsText) : JSON.parse(theirsText.split('\n')[0]!).object;
    if (theirs.status !== 410) expect(JSON.parse(theirsText.split('\n')[0]!).type).toBe('ERROR');
    expect(gone).toMatchObject({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' });

    // Positive control: a watch from the current version opens (200) and is not refused.
    const current = await cp.as('viewer')(
      `${GROUP}/namespaces/${NS}/nginxes?watch=1&resourceVersion=${before.metadata.resourceVersion}&timeoutSeconds=1`,
    );
    expect(current.status).toBe(200);
    expect(await current.text()).not.toContain('"code":410');
    await expectUnchangedAndServing();
  });

  it('logged no unexpected failure for any of the bad requests above', () => {
    expect(errorLines(cp.output())).toEqual([]);
  });
});
