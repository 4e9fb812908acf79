import { describe, expect, it } from 'vitest';
import { parseImageAllowlist } from '@ngx/nginx-api';
import { StatusException } from '../http/kube-status.js';
import { checkNginx } from '../rest/write-checks.js';
import { admissionResponse, type AdmissionOutcome } from './admission-review.js';

const BROKEN = 'server {\n  listen 80;\n  location / { return 200 }\n}\n';
const GOOD = 'server {\n  listen 80;\n  location / { return 200; }\n}\n';

/** An Nginx as kube-apiserver hands it to admission: defaulted, with server-set metadata and a status. */
const nginx = (config = GOOD, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: {
    name: 'web',
    namespace: 'team-a',
    uid: '0b6a4ac4-2b4e-4f7e-9a47-5b0a3d1c9e11',
    generation: 1,
    creationTimestamp: '2026-11-26T10:00:00Z',
    managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'mycompany.com/v1' }],
  },
  spec: { replicas: 2, config, ...extra },
});

const review = (request: Record<string, unknown>) => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: {
    uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
    kind: { group: 'mycompany.com', version: 'v1', kind: 'Nginx' },
    resource: { group: 'mycompany.com', version: 'v1', resource: 'nginxes' },
    requestKind: { group: 'mycompany.com', version: 'v1', kind: 'Nginx' },
    requestResource: { group: 'mycompany.com', version: 'v1', resource: 'nginxes' },
    name: 'web',
    namespace: 'team-a',
    operation: 'CREATE',
    userInfo: { username: 'alice' },
    object: nginx(),
    oldObject: null,
    dryRun: false,
    options: { apiVersion: 'meta.k8s.io/v1', kind: 'CreateOptions' },
    ...request,
  },
});

function answered(outcome: AdmissionOutcome) {
  if (!outcome.ok) throw new Error(`expected an answer, got 400: ${outcome.problem}`);
  expect(outcome.review.apiVersion).toBe('admission.k8s.io/v1');
  expect(outcome.review.kind).toBe('AdmissionReview');
  expect(outcome.review.response.uid).toBe('705ab4f5-6393-11e8-b7cc-42010a800002');
  return outcome.review.response;
}

/** What our REST API answers for the same object (its 422 Status). */
function restRefusal(object: unknown) {
  try {
    checkNginx(object, { namespace: 'team-a' });
  } catch (error) {
    if (error instanceof StatusException) return error.body;
    throw error;
  }
  throw new Error('expected the REST checks to refuse');
}

describe('admissionResponse', () => {
  it('allows a valid Nginx on CREATE and UPDATE', () => {
    expect(answered(admissionResponse(review({})))).toEqual({
      uid: '705ab4f5-6393-11e8-b7cc-42010a800002',
      allowed: true,
    });
    const update = review({ operation: 'UPDATE', oldObject: nginx(BROKEN) });
    expect(answered(admissionResponse(update)).allowed).toBe(true);
  });

  it('refuses a config with a syntax error as the REST API does: 422 Invalid, the line, one cause', () => {
    const response = answered(admissionResponse(review({ object: nginx(BROKEN) })));
    expect(response.allowed).toBe(false);
    const rest = restRefusal(nginx(BROKEN));
    expect(response.status).toEqual({
      status: 'Failure',
      message: rest.message,
      reason: 'Invalid',
      code: 422,
      details: rest.details,
    });
    expect(response.status?.message).toMatch(
      /^Nginx.mycompany.com "web" is invalid: spec.config: .*line 3: /,
    );
    expect(response.status?.details?.causes).toEqual([
      expect.objectContaining({ field: 'spec.config', reason: 'FieldValueInvalid' }),
    ]);
  });

  it('refuses an UPDATE to a bad config, judging the new object only', () => {
    const response = answered(
      admissionResponse(review({ operation: 'UPDATE', object: nginx(BROKEN), oldObject: nginx() })),
    );
    expect(response.allowed).toBe(false);
    expect(response.status?.message).toContain('line 3');
  });

  it('gives a dry run the same answer and nothing else (sideEffects: None)', () => {
    const real = admissionResponse(review({ object: nginx(BROKEN) }));
    const dry = admissionResponse(review({ object: nginx(BROKEN), dryRun: true }));
    expect(dry).toEqual(real);
  });

  it('checks the image allow-list as the REST API does', () => {
    const imageAllowlist = parseImageAllowlist('registry.example.com/');
    const response = answered(
      admissionResponse(review({ object: nginx(GOOD, { image: 'docker.io/nginx:1.27' }) }), {
        imageAllowlist,
      }),
    );
    expect(response.allowed).toBe(false);
    expect(response.status?.details?.causes?.[0]?.field).toBe('spec.image');
  });

  it('allows, unjudged, what it does not judge: DELETE, subresources, other resources', () => {
    for (const request of [
      { operation: 'DELETE', object: null, oldObject: nginx(BROKEN) },
      { operation: 'UPDATE', subResource: 'status', object: nginx(BROKEN) },
      { operation: 'UPDATE', subResource: 'scale', object: { kind: 'Scale' } },
      { resource: { group: '', version: 'v1', resource: 'configmaps' }, object: { kind: 'ConfigMap' } },
      { operation: 'CONNECT', object: null },
    ])
      expect(answered(admissionResponse(review(request))).allowed).toBe(true);
  });

  it('takes the namespace from the object when the request names none', () => {
    const response = answered(admissionResponse(review({ namespace: undefined, object: nginx(BROKEN) })));
    expect(response.status?.code).toBe(422);
  });

  it('names what is wrong with a body that is no AdmissionReview, never throwing', () => {
    const bad: unknown[] = [
      null,
      [],
      'review',
      42,
      {},
      { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} },
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' },
      { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: [] },
      review({ uid: '' }),
      review({ uid: 7 }),
      review({ uid: 'x'.repeat(257) }),
      review({ operation: undefined }),
      review({ object: undefined }),
      review({ object: 'nginx' }),
      review({ object: [] }),
    ];
    for (const body of bad) {
      const outcome = admissionResponse(body);
      expect(outcome.ok, JSON.stringify(body)).toBe(false);
    }
    expect(admissionResponse(JSON.parse('{"__proto__":{"request":{}}}'))).toMatchObject({ ok: false });
  });

  it('refuses an object that is no Nginx with the REST API answer, not a crash', () => {
    const response = answered(admissionResponse(review({ object: { apiVersion: 'v1', kind: 'ConfigMap' } })));
    expect(response.allowed).toBe(false);
    expect(response.status?.code).toBe(400);
    const odd = answered(admissionResponse(review({ object: { ...nginx(), spec: 'many' } })));
    expect(odd).toMatchObject({ allowed: false, status: { code: 422 } });
  });
});
