// The image allow-list in the write checks (IMAGE_ALLOWLIST): every way a write can set spec.image.
import { parseImageAllowlist } from '@ngx/nginx-api';
import { describe, expect, it } from 'vitest';
import { StatusException } from '../http/kube-status.js';
import { checkNginx, checkPatch } from './write-checks.js';

const imageAllowlist = parseImageAllowlist('docker.io/library/nginx,registry.example.com/web/')!;
/** An allow-list that does not admit the default image (nginx:latest). */
const privateOnly = parseImageAllowlist('registry.example.com/web/')!;

const nginx = (spec: Record<string, unknown>) => ({
  apiVersion: 'mycompany.com/v1',
  kind: 'Nginx',
  metadata: { name: 'web' },
  spec: { replicas: 1, ...spec },
});
const MERGE = 'application/merge-patch+json';
const APPLY = 'application/apply-patch+yaml';
const JSON_PATCH = 'application/json-patch+json';
const target = { namespace: 'default', name: 'web', imageAllowlist };

/** The refusal `run` throws: 422 Invalid, and the reasons of its spec.image causes. */
function imageRefusal(run: () => void) {
  try {
    run();
  } catch (error) {
    if (!(error instanceof StatusException)) throw error;
    expect(error.code).toBe(422);
    expect(error.body.reason).toBe('Invalid');
    const causes = error.details?.causes ?? [];
    expect(causes.every((c) => c.field === 'spec.image')).toBe(true);
    return { reasons: causes.map((c) => c.reason), message: error.message };
  }
  throw new Error('expected a refusal');
}

describe('the image allow-list on whole objects (create, update)', () => {
  it('takes images under an allowed prefix in any spelling', () => {
    for (const image of ['nginx:1.27', 'docker.io/library/nginx', 'registry.example.com/web/app:2'])
      expect(() => checkNginx(nginx({ image }), { namespace: 'default', imageAllowlist })).not.toThrow();
  });

  it('refuses others with 422 Invalid and a Forbidden cause on spec.image, on create and update', () => {
    const create = imageRefusal(() =>
      checkNginx(nginx({ image: 'evil.example/miner' }), { namespace: 'default', imageAllowlist }),
    );
    expect(create.reasons).toEqual(['FieldValueForbidden']);
    expect(create.message).toBe(
      'Nginx.mycompany.com "web" is invalid: spec.image: Forbidden: spec.image "evil.example/miner" ' +
        '(evil.example/miner) is under none of the allowed image prefixes: docker.io/library/nginx, registry.example.com/web/',
    );
    expect(
      imageRefusal(() => checkNginx(nginx({ image: 'registry.example.com/website' }), target)).reasons,
    ).toEqual(['FieldValueForbidden']);
    expect(imageRefusal(() => checkNginx(nginx({ image: 'Nginx' }), target)).reasons).toEqual([
      'FieldValueInvalid',
    ]);
  });

  it('checks the default image when spec.image is absent', () => {
    expect(() => checkNginx(nginx({}), target)).not.toThrow();
    expect(
      imageRefusal(() => checkNginx(nginx({}), { ...target, imageAllowlist: privateOnly })).reasons,
    ).toEqual(['FieldValueRequired']);
  });

  it('reports a value the schema refuses once, and leaves status updates and no allow-list alone', () => {
    expect(imageRefusal(() => checkNginx(nginx({ image: '' }), target)).reasons).toEqual([
      'FieldValueInvalid',
    ]);
    expect(() =>
      checkNginx(nginx({ image: 'evil.example/miner' }), { ...target, status: true }),
    ).not.toThrow();
    expect(() => checkNginx(nginx({ image: 'evil.example/miner' }), { namespace: 'default' })).not.toThrow();
  });
});

describe('the image allow-list on merge patches and apply configurations', () => {
  it.each([MERGE, APPLY])('%s: checks a named image, and a removal against the default', (type) => {
    expect(() => checkPatch({ spec: { image: 'nginx:1.27' } }, type, target)).not.toThrow();
    expect(() => checkPatch({ spec: { replicas: 3 } }, type, target)).not.toThrow();
    expect(
      imageRefusal(() => checkPatch({ spec: { image: 'evil.example/miner' } }, type, target)).reasons,
    ).toEqual(['FieldValueForbidden']);
    expect(() => checkPatch({ spec: { image: null } }, type, target)).not.toThrow();
    expect(
      imageRefusal(() =>
        checkPatch({ spec: { image: null } }, type, { ...target, imageAllowlist: privateOnly }),
      ).reasons,
    ).toEqual(['FieldValueRequired']);
  });

  it('does not check the spec of a status or scale patch', () => {
    for (const subresource of ['status', 'scale'] as const)
      expect(() =>
        checkPatch({ spec: { image: 'evil.example/miner', replicas: 1 } }, MERGE, { ...target, subresource }),
      ).not.toThrow();
  });
});

describe('the image allow-list on JSON patches', () => {
  const patch =
    (...ops: Record<string, unknown>[]) =>
    () =>
      checkPatch(ops, JSON_PATCH, target);

  it('checks the image an add or replace puts at /spec/image, /spec or the root', () => {
    expect(patch({ op: 'replace', path: '/spec/image', value: 'nginx:1.27' })).not.toThrow();
    expect(patch({ op: 'replace', path: '/spec/replicas', value: 2 })).not.toThrow();
    for (const [path, value] of [
      ['/spec/image', 'evil.example/miner'],
      ['/spec', { replicas: 1, image: 'evil.example/miner' }],
      ['', nginx({ image: 'evil.example/miner' })],
    ] as const)
      for (const op of ['add', 'replace'])
        expect(imageRefusal(patch({ op, path, value })).reasons, `${op} ${path}`).toEqual([
          'FieldValueForbidden',
        ]);
  });

  it('checks the default image where a patch removes spec.image or replaces the spec without one', () => {
    expect(patch({ op: 'remove', path: '/spec/image' })).not.toThrow();
    const privately =
      (...ops: Record<string, unknown>[]) =>
      () =>
        checkPatch(ops, JSON_PATCH, { ...target, imageAllowlist: privateOnly });
    expect(imageRefusal(privately({ op: 'remove', path: '/spec/image' })).reasons).toEqual([
      'FieldValueRequired',
    ]);
    expect(imageRefusal(privately({ op: 'replace', path: '/spec', value: { replicas: 1 } })).reasons).toEqual(
      ['FieldValueRequired'],
    );
    expect(
      imageRefusal(privately({ op: 'move', from: '/spec/image', path: '/metadata/annotations/x' })).reasons,
    ).toEqual(['FieldValueRequired']);
  });

  it('refuses a copy or move into spec.image, whose value it cannot see', () => {
    for (const op of ['copy', 'move'])
      for (const path of ['/spec/image', '/spec', ''])
        expect(
          imageRefusal(patch({ op, from: '/metadata/annotations/image', path })).reasons,
          `${op} to ${path}`,
        ).toEqual(['FieldValueForbidden']);
    expect(patch({ op: 'copy', from: '/spec/image', path: '/metadata/annotations/image' })).not.toThrow();
  });
});

describe('the image allow-list on a rollback (a merge patch of the template fields)', () => {
  it('passes a revision whose image is allowed, removals and precondition included', () => {
    const rollback = {
      metadata: { resourceVersion: '41' },
      spec: { image: 'nginx:1.27', port: 80, config: null, healthCheckPath: null, resources: null },
    };
    expect(() => checkPatch(rollback, MERGE, target)).not.toThrow();
  });

  it('refuses a revision whose image the allow-list no longer admits', () => {
    const rollback = {
      metadata: { resourceVersion: '41' },
      spec: { image: 'quay.io/other/nginx:1', port: 80 },
    };
    expect(imageRefusal(() => checkPatch(rollback, MERGE, target)).reasons).toEqual(['FieldValueForbidden']);
  });
});
