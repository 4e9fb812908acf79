import type { V1ControllerRevision } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { podTemplateOf } from '../pod-template.js';
import type { NginxPodTemplate } from '../template-fields.js';
import { controllerRevisionName, revisionOf } from '../template-revision.js';
import type { Nginx, NginxSpec } from '../types.js';
import { RequestRefused } from './request-refused.js';
import { revisionNumbered, revisionsOf, rollbackConflict, rollbackPlan, type Revision } from './rollback.js';

const UID = 'uid-web';
const v1: NginxSpec = { replicas: 3, image: 'nginx:1.27' };
const v2: NginxSpec = { replicas: 3, image: 'nginx:1.28', config: 'server { listen 80; }' };
const v3: NginxSpec = {
  replicas: 5,
  image: 'nginx:1.28',
  config: 'server { listen 80; }',
  resources: { requests: { cpu: '50m', memory: '64Mi' } },
};
const hash = (spec: NginxSpec) => revisionOf(podTemplateOf(spec));

const nginx = (spec: NginxSpec, resourceVersion = '40'): Nginx => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web', namespace: 'team', uid: UID, resourceVersion },
  spec,
});

function controllerRevision(
  spec: NginxSpec,
  revision: number,
  { owner = UID, created = `2026-11-22T10:0${revision}:00Z` } = {},
): V1ControllerRevision {
  const template = podTemplateOf(spec);
  const hash = revisionOf(template);
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: controllerRevisionName('web', hash),
      namespace: 'team',
      labels: { 'mycompany.com/nginx': 'web', 'mycompany.com/revision': hash },
      ownerReferences: [
        { apiVersion: 'mycompany.com/v1', kind: 'Nginx', name: 'web', uid: owner, controller: true },
      ],
      creationTimestamp: created as unknown as Date,
    },
    revision,
    data: { template },
  };
}

describe('revisionsOf', () => {
  it('keeps the Nginx’s own revisions, by controller uid, newest number first', () => {
    const revisions = revisionsOf(nginx(v3), [
      controllerRevision(v1, 1),
      controllerRevision(v3, 3),
      controllerRevision(v2, 2),
      controllerRevision(v2, 7, { owner: 'uid-of-an-earlier-web' }),
    ]);
    expect(revisions.map((r) => [r.revision, r.hash])).toEqual([
      [3, hash(v3)],
      [2, hash(v2)],
      [1, hash(v1)],
    ]);
    expect(revisions[2]).toEqual({
      name: controllerRevisionName('web', hash(v1)),
      revision: 1,
      hash: hash(v1),
      template: { image: 'nginx:1.27', port: 80 },
      created: '2026-11-22T10:01:00Z',
    });
  });

  it('skips what it cannot read: no controller reference, no template, no number', () => {
    const orphan = controllerRevision(v1, 1);
    orphan.metadata!.ownerReferences![0]!.controller = false;
    const empty = { ...controllerRevision(v2, 2), data: {} };
    const unnumbered = { ...controllerRevision(v3, 3), revision: undefined as unknown as number };
    expect(revisionsOf(nginx(v3), [orphan, empty, unnumbered])).toEqual([]);
  });

  it('takes the hash from the template when the label is missing', () => {
    const unlabelled = controllerRevision(v2, 2);
    delete unlabelled.metadata!.labels!['mycompany.com/revision'];
    expect(revisionsOf(nginx(v3), [unlabelled])[0]!.hash).toBe(hash(v2));
  });
});

describe('revisionNumbered', () => {
  const revisions = revisionsOf(nginx(v2), [controllerRevision(v1, 1), controllerRevision(v2, 2)]);

  it('finds a revision by its number', () => {
    expect(revisionNumbered(nginx(v2), revisions, 1).hash).toBe(hash(v1));
  });

  it('answers 404 naming the revision and the ones there are', () => {
    expect(() => revisionNumbered(nginx(v2), revisions, 9)).toThrowError(
      'nginxes.mycompany.com "web" has no revision 9 (it has 2, 1)',
    );
    try {
      revisionNumbered(nginx(v2), [], 9);
    } catch (error) {
      expect({ ...(error as RequestRefused), message: (error as RequestRefused).message }).toMatchObject({
        code: 404,
        message: 'nginxes.mycompany.com "web" has no revision 9',
        details: { name: 'web', kind: 'nginxes', causes: [{ field: 'revision' }] },
      });
    }
  });
});

describe('rollbackPlan', () => {
  const revision = (spec: NginxSpec, number = 1): Revision => ({
    name: 'web-x',
    revision: number,
    hash: hash(spec),
    template: podTemplateOf(spec) as NginxPodTemplate,
    created: '',
  });

  it('patches only the template fields back, on the resourceVersion read', () => {
    const plan = rollbackPlan(nginx({ ...v3, paused: true }, '41'), revision(v1), {});
    expect(plan.patch).toEqual({
      metadata: { resourceVersion: '41' },
      spec: { image: 'nginx:1.27', port: 80, config: null, resources: null },
    });
    expect(plan.nginx.spec).toEqual({ ...v3, paused: true });
  });

  it('carries the caller’s resourceVersion as the precondition', () => {
    expect(rollbackPlan(nginx(v3, '41'), revision(v2), { resourceVersion: '17' }).patch).toEqual({
      metadata: { resourceVersion: '17' },
      spec: { port: 80, resources: null },
    });
  });

  it('refuses with a 409 naming spec.ingress.tls a rollback to a revision without spec.tls under an HTTPS Ingress', () => {
    const secure: NginxSpec = {
      ...v1,
      tls: { secretName: 'web-tls' },
      service: {},
      ingress: { host: 'web.example.com', tls: true },
    };
    let refusal: unknown;
    try {
      rollbackPlan(nginx(secure, '41'), revision(v1, 3), {});
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(RequestRefused);
    const { code, message, details } = refusal as RequestRefused;
    expect(code).toBe(409);
    expect(message).toContain('revision 3 has no spec.tls');
    expect(message).toContain('set spec.ingress.tls to false first');
    expect(details?.causes).toEqual([expect.objectContaining({ field: 'spec.ingress.tls' })]);

    // With the Ingress on plain HTTP it is written, the Ingress kept as it is.
    const plain = { ...secure, ingress: { host: 'web.example.com', tls: false } };
    expect(rollbackPlan(nginx(plain, '41'), revision(v1, 3), {}).patch).toMatchObject({
      spec: { tls: null },
    });
    expect(rollbackConflict(nginx(plain, '41'), revision(v1, 3), { ...v1, ingress: plain.ingress })).toBe(
      undefined,
    );
  });

  it('writes nothing when the spec has the template already, unless the caller’s view is stale', () => {
    const same = nginx({ ...v2, replicas: 9 }, '41');
    expect(rollbackPlan(same, revision(v2), {})).toEqual({ nginx: same, patch: undefined });
    expect(rollbackPlan(same, revision(v2), { resourceVersion: '41' }).patch).toBeUndefined();
    expect(() => rollbackPlan(same, revision(v2), { resourceVersion: '17' })).toThrowError(
      /Operation cannot be fulfilled on nginxes.mycompany.com "web": the object has been modified/,
    );
  });
});
